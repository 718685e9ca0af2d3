import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { settingsDecider, type OrganizationFacts } from '@svc/domain';
import { EventIntegrityError, EventSchemaRegistry, SqliteEventStore } from '@svc/event-store';
import { commandContext } from '../infrastructure/command-context';
import { Decisions } from './decisions.service';

const owner = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const organization: OrganizationFacts = {
  organizationId: '6f0d8f4e-6b1e-4f55-9d55-3f4a3c2b1a10',
  address: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
  members: [{ address: owner, roles: ['owner', 'admin'] }],
};
const stream = `settings-${organization.address}`;
const change = (changes: Record<string, unknown>) => ({ kind: 'ChangeSettings' as const, organization, wallet: owner, changes, signatureFresh: true });

/**
 * Facts read for decisions (Decisions.load) come from a state this process keeps when the stream still ends at its
 * revision, and from the store as soon as another writer moved it; the data of an event edited in place is never served.
 */
describe('Decisions.load on the embedded event store', () => {
  let dir: string;
  let file: string;
  let store: SqliteEventStore;
  let other: SqliteEventStore;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-decisions-'));
    file = path.join(dir, 'events.sqlite');
    const schemas = EventSchemaRegistry.fromDirectory();
    store = new SqliteEventStore({ file, schemas });
    // Another process on the same file (an API replica).
    other = new SqliteEventStore({ file, schemas });
  });
  afterEach(async () => {
    await store.close();
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the state it holds while the stream is unchanged, and folds again once another writer appended', async () => {
    const decisions = new Decisions(store);
    await decisions.handle(stream, settingsDecider, change({ feeSponsor: 'organization' }), commandContext(`wallet:${owner}`));
    expect((await decisions.load(stream, settingsDecider)).state.feeSponsor).toBe('organization');

    await new Decisions(other).handle(stream, settingsDecider, change({ feeSponsor: 'svc', sponsorLowBalanceLamports: 5000 }), commandContext(`wallet:${owner}`));
    const loaded = await decisions.load(stream, settingsDecider);
    expect(loaded.state).toMatchObject({ feeSponsor: 'svc', sponsorLowBalanceLamports: 5000 });
    expect(loaded.revision).toBe(1n);
  });

  it('never serves the data of a last event edited in place: the held state stays the one decided, a full read fails', async () => {
    const decisions = new Decisions(store);
    await decisions.handle(stream, settingsDecider, change({ feeSponsor: 'organization' }), commandContext(`wallet:${owner}`));
    const db = new Database(file);
    try {
      const row = db.prepare('SELECT position, data FROM events WHERE stream_id = ?').get(stream) as { position: number; data: string };
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(row.data.replace('"organization"', '"svc"'), row.position);
    } finally {
      db.close();
    }
    // The revision did not move: the state folded before the edit is the one decided and appended.
    expect((await decisions.load(stream, settingsDecider)).state.feeSponsor).toBe('organization');
    // Any read of the event itself (a restart, a rebuild, another process) reports the edit instead of serving it.
    await expect(new Decisions(other).load(stream, settingsDecider)).rejects.toBeInstanceOf(EventIntegrityError);
  });

  it('runs parallel commands on one stream one after another: forty changes all land, none fails on a revision conflict', async () => {
    const decisions = new Decisions(store);
    const amounts = Array.from({ length: 40 }, (_, i) => 1000 + i);
    const results = await Promise.allSettled(
      amounts.map((amount) => decisions.handle(stream, settingsDecider, change({ sponsorLowBalanceLamports: amount }), commandContext(`wallet:${owner}`))),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    // In arrival order: the last change is the one in force, at revision 39.
    const loaded = await new Decisions(other).load(stream, settingsDecider);
    expect(loaded.state.sponsorLowBalanceLamports).toBe(1039);
    expect(loaded.revision).toBe(39n);
  });

  it('still resolves a conflict with another process by deciding again on the newer state', async () => {
    const here = new Decisions(store);
    const there = new Decisions(other);
    const ctx = commandContext(`wallet:${owner}`);
    await here.handle(stream, settingsDecider, change({ feeSponsor: 'organization' }), ctx);
    // The other process appends behind this one's held state; this one's next append conflicts, reads again, decides again.
    await there.handle(stream, settingsDecider, change({ sponsorLowBalanceLamports: 7000 }), ctx);
    const decided = await here.handle(stream, settingsDecider, change({ feeSponsor: 'svc' }), ctx);
    expect(decided.appended?.nextExpectedRevision).toBe(2n);
    expect(decided.state).toMatchObject({ feeSponsor: 'svc', sponsorLowBalanceLamports: 7000 });
  });
});
