/**
 * The organization's hash-chained audit log (spec §4.10; docs/api.md "Audit log"): entries for dashboard actions and
 * security-relevant changes, pages, the chain check naming the first altered entry, and anchors on the ledger.
 */
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { encodeMemo, parseEvidenceTransaction } from '@svc/evidence';
import { toSignature } from '@svc/ledger';
import { ApiClient } from '../apps/cli/src/api-client';
import { signIn } from '../apps/cli/src/operations';
import { codeOf } from './support/durability';
import { eventually, publishedDocument, type PublishedDocument } from './support/fixtures';
import { startTestService, type TestService } from './support/test-service';
import { buildTransaction, memoInstruction } from '../libs/ledger/src/testing/test-transactions';

interface Entry {
  sequence: number;
  actor: string;
  action: string;
  subject: string | null;
  details: Record<string, unknown>;
  previousHash: string;
  hash: string;
}
interface Page {
  entries: Entry[];
  nextBeforeSequence: number | null;
  head: { sequence: number; hash: string };
}
interface Verified {
  valid: boolean;
  entries: number;
  head: { sequence: number; hash: string };
  firstBreak: { sequence: number; reason: string } | null;
  anchors: { sequence: number; head: string; transactionSignature: string; slot: number; matchesLog: boolean; onLedger: boolean }[];
}

describe('audit log', () => {
  let service: TestService;
  let doc: PublishedDocument;
  let other: PublishedDocument;
  const log = (d: PublishedDocument, query = '') => d.dashboard.request<Page>('GET', `/v1/organizations/${d.organization.id}/audit-log${query}`);
  const verify = (d: PublishedDocument) => d.dashboard.request<Verified>('GET', `/v1/organizations/${d.organization.id}/audit-log/verify`);

  beforeAll(async () => {
    service = await startTestService({ env: { AUDIT_ANCHOR_SECONDS: '1', RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' } });
    [doc, other] = await Promise.all([publishedDocument(service, [1]), publishedDocument(service, [1], 'privacy')]);
    await doc.dashboard.request('POST', `/v1/organizations/${doc.organization.id}/api-keys`, { name: 'Audited key', scopes: ['acceptances:read'] });
    const { organization } = await doc.dashboard.request<{ organization: { settings: { products: { gate: boolean } } } }>('GET', `/v1/organizations/${doc.organization.id}`);
    await doc.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/settings`, { products: { gate: !organization.settings.products.gate } });
    // A sign-in of a member is recorded in the organizations it belongs to.
    await signIn(new ApiClient(service.baseUrl), doc.owner);
  });
  afterAll(() => service.destroy());

  it('records sign-in, syncs, drafts, publication, API keys and settings, with their actors and no secret', async () => {
    const page = await eventually(async () => {
      const p = await log(doc, '?limit=200');
      return p.entries.some((e) => e.action === 'settings.changed') && p.entries.some((e) => e.action === 'session.signed_in') ? p : undefined;
    });
    const actions = page.entries.map((e) => e.action).reverse();
    expect(actions).toEqual(
      expect.arrayContaining(['session.signed_in', 'organization.synced', 'document.synced', 'draft.created', 'draft.prepared', 'version.published', 'api_key.created', 'settings.changed']),
    );
    // Newest first, sequences without gaps down to 1.
    expect(page.entries.map((e) => e.sequence)).toEqual(Array.from({ length: page.entries.length }, (_, i) => page.entries.length - i));
    expect(page.head).toEqual({ sequence: page.entries[0]!.sequence, hash: page.entries[0]!.hash });
    const key = page.entries.find((e) => e.action === 'api_key.created')!;
    expect(key.actor).toBe(`wallet:${doc.owner.address}`);
    expect(key.details).toMatchObject({ name: 'Audited key', scopes: ['acceptances:read'] });
    expect(JSON.stringify(key)).not.toMatch(/keyHash|svc_test_[A-Za-z0-9_-]{43}/);
    expect(page.entries.find((e) => e.action === 'settings.changed')!.details).toEqual({ changes: { products: { gate: true } } });
    // Another organization's log holds its own actions only.
    const theirs = await eventually(async () => ((await log(other)).entries.length > 0 ? log(other) : undefined));
    expect(theirs.entries.every((e) => e.action !== 'api_key.created')).toBe(true);
  });

  it('pages newest first with beforeSequence and limit, and validates both', async () => {
    const all = (await log(doc, '?limit=200')).entries;
    const first = await log(doc, '?limit=2');
    expect(first.entries.map((e) => e.sequence)).toEqual([all[0]!.sequence, all[1]!.sequence]);
    const second = await log(doc, `?limit=2&beforeSequence=${first.nextBeforeSequence}`);
    expect(second.entries.map((e) => e.sequence)).toEqual([all[2]!.sequence, all[3]!.sequence]);
    // Any integer > 0 (spec §4.10): one beyond every sequence bounds nothing.
    expect((await log(doc, `?limit=2&beforeSequence=${'9'.repeat(30)}`)).entries).toEqual(first.entries);
    for (const query of ['?limit=0', '?limit=201', '?beforeSequence=0', '?beforeSequence=x', '?beforeSequence=-1', `?beforeSequence=${'9'.repeat(31)}`, '?colour=blue']) {
      expect([query, await codeOf(log(doc, query))]).toEqual([query, '400 invalid_request']);
    }
    expect(await codeOf(other.dashboard.request('GET', `/v1/organizations/${doc.organization.id}/audit-log`))).toBe('404 not_found');
    expect(await codeOf(other.dashboard.request('GET', `/v1/organizations/${doc.organization.id}/audit-log/verify`))).toBe('404 not_found');
  });

  it('verifies the chain and anchors its head on the ledger with an svc/1 audit record', async () => {
    const verified = await eventually(async () => {
      const v = await verify(doc);
      return v.anchors[0]?.onLedger ? v : undefined;
    });
    expect(verified.valid).toBe(true);
    expect(verified.firstBreak).toBeNull();
    const [anchor] = verified.anchors;
    expect(anchor).toMatchObject({ matchesLog: true, onLedger: true });
    // Anyone can read the anchor with a stock JSON-RPC call.
    const res = await fetch(service.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getTransaction', params: [anchor!.transactionSignature, { encoding: 'base64', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }] }),
    });
    const tx = ((await res.json()) as { result: { transaction: [string, string] } }).result;
    const memo = parseEvidenceTransaction(Buffer.from(tx.transaction[0], 'base64')).memos.find((m) => m.record?.kind === 'audit');
    expect(memo?.record).toEqual({ kind: 'audit', organization: doc.organization.address, sequence: anchor!.sequence, head: anchor!.head });
  });

  it('names exactly the altered entry when a stored entry is edited behind the service', async () => {
    const before = await verify(doc);
    expect(before.valid).toBe(true);
    const target = 3;
    const db = new Database(path.join(service.dataDir, 'read.sqlite'));
    try {
      const row = db.prepare('SELECT doc FROM "rm_audit_entries_v1" WHERE _id = ?').get(`${doc.organization.id}:${target}`) as { doc: string };
      const entry = JSON.parse(row.doc) as Entry;
      entry.details = { ...entry.details, edited: true };
      db.prepare('UPDATE "rm_audit_entries_v1" SET doc = ? WHERE _id = ?').run(JSON.stringify(entry), `${doc.organization.id}:${target}`);
    } finally {
      db.close();
    }
    const after = await verify(doc);
    expect(after.valid).toBe(false);
    expect(after.firstBreak).toEqual({ sequence: target, reason: 'hash_mismatch' });
    expect(after.head.sequence).toBe(target - 1);
    // Anchors taken after the edited entry no longer match the stored log.
    expect(after.anchors.filter((a) => a.sequence >= target).every((a) => !a.matchesLog)).toBe(true);
  });

  it('reads every listed anchor back from the ledger: a stored anchor whose head was rewritten is not on the ledger', async () => {
    // One more action moves the head, so a second anchor follows (AUDIT_ANCHOR_SECONDS=1): the older one is checked too.
    await eventually(async () => ((await verify(doc)).anchors.length > 0 ? true : undefined));
    const { organization } = await doc.dashboard.request<{ organization: { settings: { products: { gate: boolean } } } }>('GET', `/v1/organizations/${doc.organization.id}`);
    await doc.dashboard.request('PATCH', `/v1/organizations/${doc.organization.id}/settings`, { products: { gate: !organization.settings.products.gate } });
    const before = await eventually(async () => {
      const v = await verify(doc);
      return v.anchors.length >= 2 && v.anchors.every((a) => a.onLedger === true) ? v : undefined;
    });
    const anchor = before.anchors[before.anchors.length - 1]!;
    const db = new Database(path.join(service.dataDir, 'read.sqlite'));
    try {
      const row = db.prepare('SELECT doc FROM "rm_audit_anchors_v1" WHERE _id = ?').get(anchor.transactionSignature) as { doc: string };
      db.prepare('UPDATE "rm_audit_anchors_v1" SET doc = ? WHERE _id = ?').run(JSON.stringify({ ...JSON.parse(row.doc), head: 'f'.repeat(64) }), anchor.transactionSignature);
    } finally {
      db.close();
    }
    const after = await verify(doc);
    expect(after.anchors.find((a) => a.transactionSignature === anchor.transactionSignature)).toMatchObject({ head: 'f'.repeat(64), matchesLog: false, onLedger: false });
    expect(after.anchors.filter((a) => a.transactionSignature !== anchor.transactionSignature).every((a) => a.onLedger)).toBe(true);
  });

  it('counts as on the ledger only the relayer\'s own anchor: the same record in another wallet\'s transaction is not one', async () => {
    const { anchors } = await eventually(async () => {
      const v = await verify(other);
      return v.anchors.length > 0 && v.anchors.every((a) => a.onLedger) ? v : undefined;
    });
    const anchor = anchors[0]!;
    const anchorTx = await other.ledger.getTransaction(toSignature(anchor.transactionSignature));
    expect(anchor.slot).toBe(Number(anchorTx!.slot));
    // Whoever can write the stored log rewrites it, anchors the forged head from any wallet and points the anchor there.
    const forged = await buildTransaction(await other.ledger.getLatestBlockhash(), other.owner, [
      memoInstruction({ memo: encodeMemo({ kind: 'audit', organization: other.organization.address, sequence: anchor.sequence, head: anchor.head }), signers: [other.owner] }),
    ]);
    const forgedSignature = await other.ledger.sendTransaction(forged.wire, { commitment: 'confirmed' });
    const db = new Database(path.join(service.dataDir, 'read.sqlite'));
    try {
      const row = db.prepare('SELECT doc FROM "rm_audit_anchors_v1" WHERE _id = ?').get(anchor.transactionSignature) as { doc: string };
      db.prepare('UPDATE "rm_audit_anchors_v1" SET doc = ? WHERE _id = ?').run(JSON.stringify({ ...JSON.parse(row.doc), transactionSignature: forgedSignature }), anchor.transactionSignature);
    } finally {
      db.close();
    }
    const after = await verify(other);
    expect(after.anchors.find((a) => a.transactionSignature === forgedSignature)).toMatchObject({ sequence: anchor.sequence, head: anchor.head, matchesLog: true, onLedger: false });
  });
});
