import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ApiClient, saveSession, type StoredSession } from './api-client';

const session: StoredSession = { api: 'http://127.0.0.1:4911', address: 'wallet', session: 'secret-cookie', csrf: 'csrf-token', expiresAt: '2026-12-01T00:00:00.000Z' };

describe('the CLI dashboard session', () => {
  it('is sent only to the service that issued it', async () => {
    expect(() => new ApiClient('http://127.0.0.1:4911/api').useSession(session)).not.toThrow();
    expect(() => new ApiClient('http://127.0.0.1:4912').useSession(session)).toThrow('the dashboard session is for http://127.0.0.1:4911, not http://127.0.0.1:4912');
    expect(() => new ApiClient('http://localhost:4911').useSession(session)).toThrow(/is for http:\/\/127\.0\.0\.1:4911/);
    // Refused before any request: a server at the other address sees no cookie.
    const seen: (string | null)[] = [];
    const client = new ApiClient('http://127.0.0.1:4912');
    const original = globalThis.fetch;
    globalThis.fetch = (async (_url: unknown, init?: { headers?: Record<string, string> }) => {
      seen.push(init?.headers?.['cookie'] ?? null);
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    try {
      expect(() => client.useSession(session)).toThrow();
      await client.request('GET', '/v1/network');
      expect(seen).toEqual([null]);
    } finally {
      globalThis.fetch = original;
    }
  });

  it('is written owner-only, also over a file that was readable by others', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-session-'));
    try {
      const file = path.join(dir, 'session.json');
      writeFileSync(file, '{}', { mode: 0o644 });
      await saveSession(file, session);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
