/** Batch stream `batch-<lane>-<sequence>` (docs/architecture.md "Batches"): closed once, anchored once, by the transaction in force. */
import type { BatchClosedData, EventOf } from '../events';
import { A, HEX, SIG } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { batchDecider } from './batch.decider';

const closedData = (root: string = HEX.content1): BatchClosedData => ({
  lane: 2,
  sequence: 9,
  root,
  leaves: [
    {
      acceptanceId: HEX.acceptance1,
      acceptanceStream: `acceptance-${A.v1}-${A.signer}`,
      message: 'svc/1 acceptance',
      signature: SIG.acc1,
      signer: A.signer,
      versionAddress: A.v1,
    },
  ],
  feePayer: A.relayer,
  transactionSignature: SIG.acc1,
  transactionWire: 'AQID',
  lastValidBlockHeight: '150',
  closedAt: '2025-03-14T09:27:30.000Z',
});
const closed: EventOf<'BatchClosed'> = { type: 'BatchClosed', data: closedData() };
const resigned: EventOf<'BatchResigned'> = { type: 'BatchResigned', data: { transactionSignature: SIG.acc2, transactionWire: 'BAUG', lastValidBlockHeight: '300', replaces: SIG.acc1 } };
const anchored = (signature: string): EventOf<'BatchAnchored'> => ({ type: 'BatchAnchored', data: { transactionSignature: signature, slot: 120, blockTime: null, feeLamports: 5000 } });

describe('batch decider', () => {
  it('closes a batch once; closing it again with the same root is a no-op', () => {
    expect(given(batchDecider).when({ kind: 'CloseBatch', closed: closedData() })).toEqual(decided(closed));
    expect(given(batchDecider, [closed]).when({ kind: 'CloseBatch', closed: closedData() })).toEqual(decided());
  });

  it('refuses to close a closed batch with another root (chain_state)', () => {
    expect(given(batchDecider, [closed]).when({ kind: 'CloseBatch', closed: closedData(HEX.content2) })).toEqual(refused('chain_state'));
  });

  it('records the anchoring of the transaction in force, once', () => {
    expect(given(batchDecider, [closed]).when({ kind: 'RecordBatchAnchored', anchored: anchored(SIG.acc1).data })).toEqual(decided(anchored(SIG.acc1)));
    expect(given(batchDecider, [closed, anchored(SIG.acc1)]).when({ kind: 'RecordBatchAnchored', anchored: anchored(SIG.acc1).data })).toEqual(decided());
  });

  it('re-signs the transaction in force; after that the old one decides nothing', () => {
    expect(given(batchDecider, [closed]).when({ kind: 'ResignBatch', resigned: resigned.data })).toEqual(decided(resigned));
    expect(given(batchDecider, [closed, resigned]).when({ kind: 'ResignBatch', resigned: resigned.data })).toEqual(decided());
    expect(given(batchDecider, [closed, resigned]).when({ kind: 'RecordBatchAnchored', anchored: anchored(SIG.acc1).data })).toEqual(decided());
    expect(given(batchDecider, [closed, resigned]).when({ kind: 'RecordBatchAnchored', anchored: anchored(SIG.acc2).data })).toEqual(decided(anchored(SIG.acc2)));
  });

  it('refuses to re-sign or anchor a batch never closed (not_found)', () => {
    expect(given(batchDecider).when({ kind: 'ResignBatch', resigned: resigned.data })).toEqual(refused('not_found'));
    expect(given(batchDecider).when({ kind: 'RecordBatchAnchored', anchored: anchored(SIG.acc1).data })).toEqual(refused('not_found'));
  });
});
