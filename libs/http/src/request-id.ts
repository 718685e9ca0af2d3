import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Request id: the caller's `x-request-id` when well-formed (1 to 64 of `A-Za-z0-9._-`), else a new UUID; echoed on the response. */
export function requestId(req: IncomingMessage, res?: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  res?.setHeader('x-request-id', id);
  return id;
}
