/**
 * HTTP edge, at the connection: a request whose body never finishes arriving (docs/api.md "Input limits and content
 * types": HTTP_REQUEST_TIMEOUT_SECONDS), requests that ask for a protocol upgrade the service does not make (RFC 9110
 * §7.8), compressed request bodies, requests without Host, and expectations the service cannot meet.
 */
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { startTestService, type TestService } from './support/test-service';

interface Exchange {
  /** Everything the server sent. */
  text: string;
  /** Whether the server closed the connection (false: the exchange was ended by `until`). */
  closedByServer: boolean;
}

/**
 * Writes `chunks` on one raw connection (each after `gapMs`), then reads until the server closes it, `until` says the
 * answer is complete, or `collectMs` have passed. Rejects if none of these happens within `giveUpMs`.
 */
function exchange(
  port: number,
  chunks: (string | Buffer)[],
  options: { gapMs?: number; until?: (text: string) => boolean; giveUpMs?: number; collectMs?: number } = {},
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    // collectMs: whatever arrived by then is the exchange.
    if (options.collectMs !== undefined) setTimeout(() => finish(false), options.collectMs);
    let text = '';
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedByServer });
    };
    const timer = setTimeout(() => {
      done = true;
      socket.destroy();
      reject(new Error(`no end of the exchange after ${options.giveUpMs ?? 20_000} ms; received: ${JSON.stringify(text)}`));
    }, options.giveUpMs ?? 20_000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (options.until?.(text)) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('connect', async () => {
      for (const [i, chunk] of chunks.entries()) {
        if (i > 0 && options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
        if (!socket.destroyed) socket.write(chunk);
      }
    });
  });
}

/**
 * Sends `request` from a client that keeps its side of the connection open after the server ends its own, then
 * writes a byte every 100 ms: a server that has let go of the connection makes such a write fail. Resolves with what
 * the server sent and whether it let go within `ms`.
 */
function serverLetsGo(port: number, request: string, ms: number): Promise<{ text: string; letGo: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let text = '';
    let probe: NodeJS.Timeout | undefined;
    const finish = (letGo: boolean) => {
      clearTimeout(timer);
      clearInterval(probe);
      socket.destroy();
      resolve({ text, letGo });
    };
    const timer = setTimeout(() => finish(false), ms);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => (probe = setInterval(() => socket.write('x'), 100)));
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('connect', () => socket.write(request));
  });
}

/** The answers in `text`, in order: status and body (each answer here has a content-length). */
function answers(text: string): { status: number; headers: Record<string, string>; body: string }[] {
  const out: { status: number; headers: Record<string, string>; body: string }[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

const complete = (count: number) => (text: string) => {
  const got = answers(text);
  return got.length >= count && got.every((a) => Buffer.byteLength(a.body, 'latin1') === Number(a.headers['content-length'] ?? 0));
};

const GET_SLOT = '{"jsonrpc":"2.0","id":1,"method":"getSlot"}';

describe('HTTP edge: request time limit, upgrades not made, compressed bodies', () => {
  let service: TestService;
  let port: number;

  beforeAll(async () => {
    service = await startTestService({ env: { HTTP_REQUEST_TIMEOUT_SECONDS: '1', RATE_LIMIT_GENERAL_PER_MINUTE: '10000' } });
    port = Number(new URL(service.baseUrl).port);
  });
  afterAll(() => service.destroy());

  it('answers a request whose body stops arriving 408 in the envelope and closes the connection', async () => {
    for (const path of ['/api/v1/acceptance/challenges', '/api/v1/acceptance-sessions', '/rpc']) {
      const stalled = await exchange(port, [`POST ${path} HTTP/1.1\r\nHost: a\r\nOrigin: https://shop.example.com\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`]);
      expect([path, stalled.closedByServer]).toEqual([path, true]);
      const [answer] = answers(stalled.text);
      expect([path, answer?.status, JSON.parse(answer?.body ?? 'null')]).toEqual([path, 408, { error: { code: 'invalid_request', message: 'request timed out' } }]);
    }
  });

  it('serves a body that arrives in parts within the limit', async () => {
    const body = GET_SLOT;
    const split = await exchange(port, [`POST /rpc HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`, body.slice(10)], {
      gapMs: 200,
      until: complete(1),
    });
    const [answer] = answers(split.text);
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body)).toEqual({ jsonrpc: '2.0', id: 1, result: expect.any(Number) });
  });

  it('answers a request asking for an HTTP/2 upgrade (curl --http2, Java HttpClient) as an ordinary HTTP/1.1 request, body and the next request on the connection included', async () => {
    const h2c = 'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n';
    const got = await exchange(
      port,
      [
        `GET /api/v1/network HTTP/1.1\r\nHost: a\r\n${h2c}\r\n`,
        `POST /rpc HTTP/1.1\r\nHost: a\r\n${h2c}Content-Type: application/json\r\nContent-Length: ${GET_SLOT.length}\r\n\r\n${GET_SLOT}`,
        'GET /api/v1/network HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
      ],
      { gapMs: 100, until: complete(3) },
    );
    const [network, slot, again] = answers(got.text);
    expect(network).toMatchObject({ status: 200, headers: { 'x-request-id': expect.any(String) } });
    expect(network!.headers.upgrade).toBeUndefined();
    expect(JSON.parse(network!.body)).toMatchObject({ cluster: 'localnet', relayer: expect.any(String) });
    expect(slot?.status).toBe(200);
    expect(JSON.parse(slot!.body)).toEqual({ jsonrpc: '2.0', id: 1, result: expect.any(Number) });
    expect(again?.status).toBe(200);
    expect(again!.body).toBe(network!.body);
  });

  it('keeps the length of a request asking for an upgrade, whatever its Connection header names: its body is never read as a second request', async () => {
    const hidden = 'GET /api/v1/network HTTP/1.1\r\nHost: a\r\n\r\n';
    for (const names of ['Upgrade, Content-Length', 'Upgrade, Content-Length, Host, Content-Type']) {
      const got = await exchange(
        port,
        [`POST /rpc HTTP/1.1\r\nHost: a\r\nConnection: ${names}\r\nUpgrade: h2c\r\nContent-Type: application/json\r\nContent-Length: ${hidden.length}\r\n\r\n${hidden}`],
        { collectMs: 1_000 },
      );
      const all = answers(got.text);
      // One answer, the JSON-RPC server's to a body that is not JSON: the hidden GET never ran.
      expect([names, all.length, all[0]?.status]).toEqual([names, 1, 200]);
      expect(JSON.parse(all[0]!.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    }
  });

  it('answers a websocket upgrade asked of a path without a websocket as the ordinary request, and still upgrades /rpc', async () => {
    const ws = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
    const elsewhere = await exchange(port, [`GET /api/v1/network HTTP/1.1\r\nHost: a\r\n${ws}\r\n`], { until: complete(1) });
    const [answer] = answers(elsewhere.text);
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body)).toMatchObject({ cluster: 'localnet' });
    const upgraded = await exchange(port, [`GET /rpc HTTP/1.1\r\nHost: a\r\n${ws}\r\n`], { until: (text) => text.includes('\r\n\r\n') });
    expect(upgraded.text).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(upgraded.text).toMatch(/\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=\r\n/i);
  });

  it('refuses an HTTP/1.1 request without Host 400 in the envelope, serves one of HTTP/1.0, refuses an expectation it cannot meet 417 and CONNECT 405', async () => {
    const noHost = await exchange(port, ['GET /api/v1/network HTTP/1.1\r\nConnection: close\r\n\r\n'], { until: complete(1) });
    const [refused] = answers(noHost.text);
    expect(refused).toMatchObject({ status: 400, headers: { 'x-request-id': expect.any(String), 'content-type': 'application/json; charset=utf-8' } });
    expect(JSON.parse(refused!.body)).toEqual({ error: { code: 'invalid_request', message: 'host: an HTTP/1.1 request must carry a Host header' } });
    const old = await exchange(port, ['GET /api/v1/network HTTP/1.0\r\n\r\n']);
    expect(old.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(old.text.slice(old.text.indexOf('\r\n\r\n') + 4))).toMatchObject({ cluster: 'localnet' });

    const unmet = await exchange(port, [`POST /rpc HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\nContent-Type: application/json\r\nContent-Length: ${GET_SLOT.length}\r\n\r\n`], { until: complete(1) });
    const [expectation] = answers(unmet.text);
    expect(expectation?.status).toBe(417);
    expect(JSON.parse(expectation!.body)).toEqual({ error: { code: 'invalid_request', message: 'expect: only 100-continue is supported' } });
    // The one expectation a server can meet is met: 100 Continue, then the answer.
    const met = await exchange(port, [`POST /rpc HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${GET_SLOT.length}\r\n\r\n`, GET_SLOT], {
      gapMs: 100,
      until: (text) => text.includes('"jsonrpc"') && text.endsWith('}'),
    });
    expect(met.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);

    // Let go by the server even when the client keeps its own side open.
    const tunnel = await serverLetsGo(port, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`, 5_000);
    expect(tunnel.letGo).toBe(true);
    const [connect] = answers(tunnel.text);
    expect(connect?.status).toBe(405);
    expect(JSON.parse(connect!.body)).toEqual({ error: { code: 'invalid_request', message: 'method: CONNECT is not supported (this server is no proxy)' } });
  });

  it('refuses a compressed request body 415 in the envelope', async () => {
    const body = JSON.stringify({ address: '11111111111111111111111111111111' });
    for (const encoding of ['gzip', 'br', 'deflate']) {
      const res = await fetch(`${service.baseUrl}/api/v1/auth/challenge`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: encoding === 'gzip' ? gzipSync(body) : body,
      });
      expect([encoding, res.status, await res.json()]).toEqual([encoding, 415, { error: { code: 'invalid_request', message: 'content-encoding: request bodies must not be compressed (identity only)' } }]);
    }
    const identity = await fetch(`${service.baseUrl}/api/v1/auth/challenge`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'identity' }, body });
    expect(identity.status).not.toBe(415);
  });
});
