import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorBody } from './error.filter';
import { corsAnswerHeaders } from './cors';
import { rateHeadersOutsideLimiter } from './rate-limit';

/**
 * Answers that Node or Fastify give before any route runs, in the error envelope of spec §7 (code
 * `invalid_request`, as spec §7 has no code of its own for them; docs/api.md "Input limits and content types").
 */

function envelope(message: string): string {
  const body: ErrorBody = { error: { code: 'invalid_request', message } };
  return JSON.stringify(body);
}

/**
 * Status and message for an error of Node's HTTP parser (`clientError` event): headers (the request line
 * included) over Node's 16 KiB limit → 431; a request that took too long → 408; anything else → 400.
 */
export function clientErrorStatus(code: string | undefined): { status: number; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'request line and headers exceed 16 KiB' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'request timed out' };
  return { status: 400, message: 'malformed HTTP request' };
}

/**
 * Fastify's `clientErrorHandler`: writes the envelope on the raw socket and closes it (the parser cannot go on
 * after such an error). Connection resets and destroyed sockets are left alone.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = clientErrorStatus(err.code);
  const body = envelope(message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/**
 * The server's `checkExpectation` listener: a request whose `Expect` is not `100-continue` (the one expectation a
 * server can meet, RFC 9110 §10.1.1) is refused `417` in the envelope, where Node would answer it with an empty body.
 */
export function refuseUnmetExpectation(request: IncomingMessage, response: ServerResponse): void {
  const body = envelope('expect: only 100-continue is supported');
  response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
  response.end(body);
  request.resume();
}

/**
 * The server's `connect` listener: the service is no proxy, so a `CONNECT` request is refused `405` in the envelope
 * and its connection closed (destroyed once the answer is written), where Node would close it without a word.
 */
export function refuseConnect(_request: IncomingMessage, socket: Duplex): void {
  const body = envelope('method: CONNECT is not supported (this server is no proxy)');
  // Destroyed once the answer is written: ending only our side would leave the connection half open for as long as the
  // client keeps its side, with no timeout left to close it.
  socket.end(
    `HTTP/1.1 405 ${STATUS_CODES[405]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/** A request as {@link frameworkErrors} reads it. */
interface EarlyRequest {
  id?: string;
  server?: object;
  ip?: string;
  headers?: Record<string, string | string[] | undefined>;
}

/**
 * Fastify's `frameworkErrors` for a service whose app origin is `appOrigin`: errors of the router before a route is
 * chosen. A path parameter longer than `maxParamLength` → 414; a URL that cannot be decoded → 400; others keep their
 * own 4xx status (500 otherwise). The answer is written on the raw response (no route, so no hooks run for it), with
 * what every answer carries: `x-request-id`, the rate headers of spec §8 and the CORS headers (./cors.ts).
 */
export const frameworkErrors =
  (appOrigin: string) =>
  (error: { code?: string; statusCode?: number; message: string }, request: EarlyRequest, reply: { raw: ServerResponse }): void => {
    const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : error.code === 'FST_ERR_BAD_URL' ? 400 : (error.statusCode ?? 500);
    const message =
      status === 414 ? 'a path segment is too long' : status === 400 ? 'the URL is not valid' : status >= 500 ? 'internal error' : error.message;
    const body = status >= 500 ? JSON.stringify({ error: { code: 'internal_error', message } }) : envelope(message);
    const rate = request.server ? rateHeadersOutsideLimiter(request.server, request) : undefined;
    const origin = request.headers?.origin;
    reply.raw.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      ...(request.id ? { 'x-request-id': request.id } : {}),
      ...rate,
      ...corsAnswerHeaders(typeof origin === 'string' ? origin : undefined, appOrigin),
    });
    reply.raw.end(body);
  };
