import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { RpcLedger } from '@svc/ledger';
import { outcome, send } from './support/raw-http';
import { startTestService } from './support/test-service';

/** Every file and directory under `dir` with its permission bits. */
function modesUnder(dir: string): { file: string; mode: number; directory: boolean }[] {
  const out: { file: string; mode: number; directory: boolean }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const stat = statSync(full);
    out.push({ file: path.relative(dir, full), mode: stat.mode & 0o777, directory: entry.isDirectory() });
    if (entry.isDirectory()) out.push(...modesUnder(full).map((m) => ({ ...m, file: path.join(entry.name, m.file) })));
  }
  return out;
}

describe('data directory permissions', () => {
  let parent: string;
  let umask: number;

  beforeEach(() => {
    parent = mkdtempSync(path.join(tmpdir(), 'svc-modes-'));
    // A permissive umask, as a shell usually has: the service must not depend on the caller's.
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(parent, { recursive: true, force: true });
  });

  it.each([
    ['an existing world-readable directory', true],
    ['a directory that does not exist yet', false],
  ])('makes %s private (0700) and every file the service writes owner-only (0600)', async (_name, exists) => {
    const dataDir = path.join(parent, 'data');
    if (exists) {
      mkdirSync(dataDir);
      chmodSync(dataDir, 0o755);
    }
    const service = await startTestService({ dataDir });
    try {
      // Writes to the event store and read store (sign-in challenge) and to the ledger journal (airdrop).
      const wallet = await generateKeyPairSigner();
      expect(outcome(await send(service.baseUrl, 'POST', '/v1/auth/challenge', { body: JSON.stringify({ address: wallet.address }) }))).toBe('200 ok');
      await new RpcLedger({ url: service.rpcUrl }).requestAirdrop(wallet.address, 1_000_000n);
    } finally {
      await service.stop();
    }
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const entries = modesUnder(dataDir);
    expect(entries.filter((e) => !e.directory).length).toBeGreaterThanOrEqual(3);
    expect(entries.some((e) => e.file.startsWith('keys'))).toBe(true);
    const exposed = entries.filter((e) => (e.mode & 0o077) !== 0).map((e) => `${e.file} ${e.mode.toString(8)}`);
    expect(exposed).toEqual([]);
  });
});
