import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort, startService } from './service-process';

/** Starting the service (as `svc demo` does) on a port something else already serves. */
describe('startService on a port in use', () => {
  let other: Server;
  let port: number;
  let asked: string[];
  beforeEach(async () => {
    port = await freePort();
    asked = [];
    // Another service on that port, ready as far as its answers go.
    other = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}');
    });
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    await new Promise((resolve) => other.close(resolve));
  });

  it('refuses before starting anything, rather than taking the other service for its own', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-port-in-use-'));
    try {
      await expect(startService({ dataDir, port, timeoutMs: 5_000 })).rejects.toThrow(`port ${port} is in use on 127.0.0.1`);
      expect(asked).toEqual([]);
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
