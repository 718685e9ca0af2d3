import type { FastifyReply } from 'fastify';
import fresh from 'fresh';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { DomainError } from '@svc/domain';

/**
 * The UTF-8 bytes of a stored text, only when they hash to the name they are asked by (spec §4.2: "served only
 * when their SHA-256 equals hash").
 * @throws DomainError not_found (404) when they do not.
 */
export function verifiedBytes(text: string, hash: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (createHash('sha256').update(bytes).digest('hex') !== hash) throw new DomainError('not_found', 'content not found');
  return bytes;
}

/**
 * Whether the request's `If-None-Match` names `etag` (or is `*`): RFC 9110 §13.1.2, weak comparison, as the `fresh`
 * library judges it. Only If-None-Match is handed over: a request's `cache-control: no-cache` speaks to caches, and
 * fetch() adds it to every conditional request, but the origin still answers the condition (RFC 9111 §5.2.1.4).
 */
export function namedByIfNoneMatch(reply: FastifyReply, etag: string): boolean {
  return fresh({ 'if-none-match': reply.request.headers['if-none-match'] }, { etag });
}

/**
 * Answers `304 Not Modified` without a body. A 304 states the length of the 200 answer (`length`, bytes) or none
 * (RFC 9110 §8.6): Fastify's HEAD route would say 0 for an empty body, and an empty stream leaves the length given.
 */
export function sendNotModified(reply: FastifyReply, length: number): void {
  if (reply.request.method === 'HEAD') void reply.code(304).header('content-length', String(length)).send(Readable.from([]));
  else void reply.code(304).send();
}

/**
 * Sends canonical document bytes as `text/markdown; charset=utf-8`, named by their hash (`etag`,
 * `x-content-sha256`), with `x-content-type-options: nosniff` so that no browser renders them as anything else.
 * A request whose `If-None-Match` names the hash (or `*`) gets `304 Not Modified` with the same headers and no body
 * ({@link namedByIfNoneMatch}).
 */
export function sendContent(reply: FastifyReply, bytes: Buffer, hash: string, cacheControl: string): void {
  const etag = `"${hash}"`;
  void reply.header('x-content-type-options', 'nosniff').header('etag', etag).header('cache-control', cacheControl).header('x-content-sha256', hash);
  if (namedByIfNoneMatch(reply, etag)) return sendNotModified(reply, bytes.length);
  void reply.header('content-type', 'text/markdown; charset=utf-8').send(bytes);
}

/** The headers {@link sendContent} sets, as the OpenAPI document declares them. */
export const CONTENT_HEADERS = {
  etag: { description: 'The content hash in quotes: `"<sha256 hex>"`', schema: { type: 'string' } },
  'x-content-sha256': { description: 'SHA-256 of the body, lower-case hex', schema: { type: 'string' } },
  'cache-control': { description: 'Caching of the bytes', schema: { type: 'string' } },
  'x-content-type-options': { description: '`nosniff`', schema: { type: 'string' } },
};
