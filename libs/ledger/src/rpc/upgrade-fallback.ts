import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** Whether a request asks for a websocket (RFC 6455 §4.2.1: `Upgrade` names `websocket`, in any case). */
export function asksForWebsocket(request: IncomingMessage): boolean {
  return (request.headers.upgrade ?? '').split(',').some((protocol) => protocol.trim().toLowerCase() === 'websocket');
}

/** Connection options that stay meaningful once the upgrade is dropped. */
const KEPT_CONNECTION_OPTIONS = new Set(['close', 'keep-alive']);

/**
 * The headers dropped from the request: the upgrade's own. Only these: a header the client names in `Connection` is
 * kept all the same, so that no request can have its `Content-Length`, `Transfer-Encoding`, `Host` or forwarding
 * headers removed by naming them there (which would turn its body into a second request, or hide its origin).
 */
const UPGRADE_HEADERS = new Set(['connection', 'upgrade', 'http2-settings']);

/**
 * Serves a request that carried `Connection: Upgrade` as the ordinary request it also is, without upgrading.
 *
 * Once a server has an `upgrade` listener, Node hands it every request with `Connection: Upgrade`, whatever it asks
 * for: an HTTP/2 cleartext upgrade (`Upgrade: h2c`, sent by `curl --http2` and by Java's `HttpClient` to http://
 * addresses), a websocket on a path that serves none. RFC 9110 §7.8 lets a server ignore the upgrade and answer the
 * request. The request's head is written again without `Upgrade`, `HTTP2-Settings` and `Connection` (but for its
 * `close` or `keep-alive`), put back in front of the bytes read after it (`head`, the start of a body), and the socket
 * is handed to `server` as a new connection: its parser reads the request, body included, and the server answers it
 * like every other, on the same connection.
 */
export function serveWithoutUpgrade(server: Server, request: IncomingMessage, socket: Duplex, head: Buffer): void {
  const options = (request.headers.connection ?? '')
    .split(',')
    .map((option) => option.trim().toLowerCase())
    .filter((option) => option !== '');
  const lines = [`${request.method ?? 'GET'} ${request.url ?? '/'} HTTP/${request.httpVersion}`];
  const raw = request.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!UPGRADE_HEADERS.has(raw[i]!.toLowerCase())) lines.push(`${raw[i]}: ${raw[i + 1]}`);
  }
  const kept = options.filter((option) => KEPT_CONNECTION_OPTIONS.has(option));
  if (kept.length > 0) lines.push(`Connection: ${kept.join(', ')}`);
  // Header values come from Node's parser as latin1 strings (no CR or LF can be in them): written back byte for byte.
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  server.emit('connection', socket);
}
