/**
 * Stream `batch-<lane>-<sequence>`: one Merkle batch of acceptances (docs/architecture.md "Batches", docs/protocol.md
 * §7.7). `BatchClosed` records the leaves, the root and the signed anchoring transaction before it is sent; then
 * `BatchResigned` when its blockhash expired unlanded, and `BatchAnchored` once it landed.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { BatchAnchoredData, BatchClosedData, BatchResignedData, EventOf } from '../events';

export type BatchEvent = EventOf<'BatchClosed'> | EventOf<'BatchResigned'> | EventOf<'BatchAnchored'>;

export interface BatchState {
  closed: BatchClosedData | null;
  /** The anchoring transaction in force: the closed one, or the latest re-signed one. */
  transaction: { transactionSignature: string; transactionWire: string; lastValidBlockHeight: string } | null;
  anchored: BatchAnchoredData | null;
}

export type BatchCommand =
  | { kind: 'CloseBatch'; closed: BatchClosedData }
  | { kind: 'ResignBatch'; resigned: BatchResignedData }
  | { kind: 'RecordBatchAnchored'; anchored: BatchAnchoredData };

/** Whether a batch is closed and its anchoring transaction in force is `transactionSignature`, not yet anchored. */
function awaitsAnchor(state: BatchState, transactionSignature: string): boolean {
  return state.closed !== null && state.anchored === null && state.transaction?.transactionSignature === transactionSignature;
}

export const batchDecider: Decider<BatchCommand, BatchEvent, BatchState> = {
  eventTypes: ['BatchClosed', 'BatchResigned', 'BatchAnchored'],
  initialState: { closed: null, transaction: null, anchored: null },
  evolve(state, event) {
    switch (event.type) {
      case 'BatchClosed': {
        const { transactionSignature, transactionWire, lastValidBlockHeight } = event.data;
        return { closed: event.data, transaction: { transactionSignature, transactionWire, lastValidBlockHeight }, anchored: null };
      }
      case 'BatchResigned': {
        const { transactionSignature, transactionWire, lastValidBlockHeight } = event.data;
        return { ...state, transaction: { transactionSignature, transactionWire, lastValidBlockHeight } };
      }
      case 'BatchAnchored':
        return { ...state, anchored: event.data };
    }
  },
  /**
   * A batch is closed once: closing it again with the same root is a no-op (a batcher replaying its work), with
   * another root a conflict. Re-signing and anchoring apply only to the transaction in force of a closed batch not
   * anchored yet; anything else is a no-op (the anchoring processor is at-least-once).
   * @throws DomainError chain_state (409) when the batch was closed with another root; not_found (404) when a
   *   transaction is re-signed or anchored for a batch that was never closed.
   */
  decide(command, state) {
    switch (command.kind) {
      case 'CloseBatch':
        if (state.closed === null) return [{ type: 'BatchClosed', data: command.closed }];
        if (state.closed.root === command.closed.root) return [];
        throw new DomainError('chain_state', `batch ${command.closed.sequence} of lane ${command.closed.lane} was closed with another root`);
      case 'ResignBatch':
        if (state.closed === null) throw new DomainError('not_found', 'batch not found');
        return awaitsAnchor(state, command.resigned.replaces) ? [{ type: 'BatchResigned', data: command.resigned }] : [];
      case 'RecordBatchAnchored':
        if (state.closed === null) throw new DomainError('not_found', 'batch not found');
        return awaitsAnchor(state, command.anchored.transactionSignature) ? [{ type: 'BatchAnchored', data: command.anchored }] : [];
    }
  },
};
