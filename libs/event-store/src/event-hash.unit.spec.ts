/**
 * The hash encodings of event-hash.ts against vectors computed by an independent implementation of the
 * documented encoding (Python: `hashlib.sha256(json.dumps(fields, separators=(',', ':'),
 * ensure_ascii=False).encode())`), and their sensitivity to every field.
 */
import { GENESIS_HASH, sqliteRowHash, streamEventHash, type SqliteRowFields } from './event-hash';

const FIRST: SqliteRowFields = {
  position: 1n,
  streamId: 'acceptance-"quoted"',
  revision: 0n,
  id: '2f1c6f5e-8a1b-4c3d-9e7f-0a1b2c3d4e5f',
  type: 'ThingHappened',
  data: '{"thingId":"é\\n","n":1}',
  metadata: '{"actor":"service:x"}',
  createdAt: '2026-11-22T10:00:00.000Z',
  prevHash: GENESIS_HASH,
  streamPrevHash: GENESIS_HASH,
};
const FIRST_HASH = 'f1ce945103304a97a75cf6473a7753320b524febab59369648ec3271ec63dc0a';

describe('sqliteRowHash', () => {
  it('matches the independently computed vectors (first row, then a row linked to it)', () => {
    expect(sqliteRowHash(FIRST)).toBe(FIRST_HASH);
    const link = FIRST_HASH;
    const second: SqliteRowFields = {
      ...FIRST,
      position: 2n,
      revision: 1n,
      id: '3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d',
      data: '{"thingId":"x","n":2}',
      prevHash: link,
      streamPrevHash: link,
    };
    expect(sqliteRowHash(second)).toBe('79db95767f1f0010c6efbf4d4409819b6e5f9bd051278e5dd810caaf9e17057d');
  });

  it('changes with every field, and fields cannot run into each other', () => {
    const base = sqliteRowHash(FIRST);
    const variants: SqliteRowFields[] = [
      { ...FIRST, position: 2n },
      { ...FIRST, streamId: 'other' },
      { ...FIRST, revision: 1n },
      { ...FIRST, id: FIRST.id.replace('2f', '3f') },
      { ...FIRST, type: 'OtherThing' },
      { ...FIRST, data: '{"thingId":"é\\n","n":2}' },
      { ...FIRST, metadata: '{"actor":"service:y"}' },
      { ...FIRST, createdAt: '2026-11-22T10:00:00.001Z' },
      { ...FIRST, prevHash: '01'.repeat(32) },
      { ...FIRST, streamPrevHash: '01'.repeat(32) },
      // The same characters split differently between two fields.
      { ...FIRST, streamId: 'acceptance-"quoted', revision: 0n, id: `"${FIRST.id}` },
    ];
    for (const v of variants) expect(sqliteRowHash(v)).not.toBe(base);
  });
});

describe('streamEventHash', () => {
  it('matches the independently computed vector', () => {
    const hash = streamEventHash({
      streamId: 's-1',
      revision: 0n,
      id: '2f1c6f5e-8a1b-4c3d-9e7f-0a1b2c3d4e5f',
      type: 'ThingHappened',
      data: '{"n":1,"thingId":"x"}',
      metadata: '{"actor":"service:x"}',
      streamPrevHash: GENESIS_HASH,
    });
    expect(hash).toBe('b8d4f3f55a1ca1b7c6b0105dea7be59cafa8b42937b79684b401863ad5432f4d');
  });
});
