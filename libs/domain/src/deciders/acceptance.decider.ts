/**
 * Stream `acceptance-<versionAddress>-<signer>`: the acceptance of one version by one signer. The stream name is
 * the uniqueness key (spec §3: one acceptance per signer per version), claimed with an expected revision.
 *
 * Life of an acceptance (docs/architecture.md "Relay"): `AcceptanceSubmitted` records the signed relay
 * transaction before it is sent; then `AcceptanceRelayed` (landed) or `AcceptanceRelayFailed` (refused), with
 * `AcceptanceResigned` in between when the blockhash expired unlanded; `AcceptanceFinalized` once the ledger
 * finalized it. After a failure the signer may submit again (a new acceptance id on the same stream).
 *
 * A batched acceptance (`evidenceMode` `MERKLE_BATCHED`, docs/architecture.md "Batches") has no transaction of its
 * own: `AcceptanceBatched` places it in a batch of its lane before that batch is closed, and `AcceptanceRelayed`
 * (with `batch`) records the batch's anchoring transaction once it landed.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type {
  AcceptanceBatchedData,
  AcceptanceFinalizedData,
  AcceptanceRelayedData,
  AcceptanceRelayFailedData,
  AcceptanceResignedData,
  AcceptanceSubmittedData,
  EventOf,
} from '../events';
import type { ChallengeState } from './challenge.decider';

export type AcceptanceEvent =
  | EventOf<'AcceptanceSubmitted'>
  | EventOf<'AcceptanceResigned'>
  | EventOf<'AcceptanceRelayed'>
  | EventOf<'AcceptanceRelayFailed'>
  | EventOf<'AcceptanceFinalized'>
  | EventOf<'AcceptanceBatched'>;

/** The relay transaction in force: the submitted one, or the latest re-signed one. */
export interface RelayTransaction {
  transactionSignature: string;
  transactionWire: string;
  lastValidBlockHeight: string;
}

export interface AcceptanceState {
  /** `none`: nothing recorded, or the last attempt failed (`failed`): the signer may submit. */
  status: 'none' | 'submitted' | 'relayed' | 'failed';
  submitted: AcceptanceSubmittedData | null;
  transaction: RelayTransaction | null;
  relayed: AcceptanceRelayedData | null;
  finalized: boolean;
  /** The batch a batched acceptance was placed in; null until then, and in direct mode. */
  batched: AcceptanceBatchedData | null;
}

export interface SubmitAcceptanceCommand {
  kind: 'SubmitAcceptance';
  /** The challenge, folded from its stream. */
  challenge: ChallengeState;
  /** Constant-time comparison of the presented clientBinding with the challenge's stored hash. */
  bindingMatches: boolean;
  hasPasskeyAssertion: boolean;
  signature: string | undefined;
  /** Strict Ed25519 verification of `signature` over the challenge message by the signer. */
  signatureValid: boolean;
  /** The document's current version folded from the document stream (write side), or null. */
  currentVersionAddress: string | null;
  /** Decision time, Unix milliseconds. */
  now: number;
  /** The record to append, relay transaction signed; null when the signature did not verify (nothing to relay). */
  submission: AcceptanceSubmittedData | null;
}

export type AcceptanceCommand =
  | SubmitAcceptanceCommand
  | { kind: 'ResignAcceptance'; resigned: AcceptanceResignedData }
  | { kind: 'RecordRelayed'; relayed: AcceptanceRelayedData }
  | {
      kind: 'RecordRelayFailed';
      failed: AcceptanceRelayFailedData;
      /** For a batched acceptance: the batch whose anchor it failed in (it must be placed there). */
      batch?: { lane: number; sequence: number };
    }
  | { kind: 'RecordFinalized'; finalized: AcceptanceFinalizedData }
  | {
      kind: 'PlaceInBatch';
      batched: AcceptanceBatchedData;
      /** The lane's batches up to this sequence are recorded (`BatchClosed`); a placement in a later one may move. */
      recordedUpTo: number;
    };

/**
 * The landing of an acceptance's transaction. One the ledger had already finalized when it was recorded (the
 * outcome was recorded late, after a restart) is recorded finalized at once as well: `AcceptanceFinalized` is
 * written once per acceptance, whether its finality was seen by the finality processor or at recording.
 */
function relayedEvents(relayed: AcceptanceRelayedData): AcceptanceEvent[] {
  const events: AcceptanceEvent[] = [{ type: 'AcceptanceRelayed', data: relayed }];
  if (relayed.commitment === 'finalized') {
    events.push({ type: 'AcceptanceFinalized', data: { acceptanceId: relayed.acceptanceId, transactionSignature: relayed.transactionSignature, slot: relayed.slot } });
  }
  return events;
}

const INITIAL: AcceptanceState = { status: 'none', submitted: null, transaction: null, relayed: null, finalized: false, batched: null };

/**
 * The placement a `PlaceInBatch` records: none when the acceptance does not wait for anchoring, is already in that
 * batch, or is in a batch of its lane that was recorded (its leaf is in that batch's tree). A placement in a batch
 * never recorded (the batcher stopped between placing and closing) moves to the new one.
 */
function placement(state: AcceptanceState, batched: AcceptanceBatchedData, recordedUpTo: number): AcceptanceBatchedData | null {
  if (state.status !== 'submitted' || state.submitted?.evidenceMode !== 'MERKLE_BATCHED' || state.submitted.acceptanceId !== batched.acceptanceId) return null;
  const current = state.batched;
  if (current === null) return batched;
  if (current.lane === batched.lane && current.sequence === batched.sequence) return null;
  return current.lane === batched.lane && current.sequence > recordedUpTo ? batched : null;
}

/**
 * Whether `acceptanceId` is the acceptance in force and still waits for its relay outcome, and (when given)
 * `transactionSignature` is its transaction in force: the outcome of a transaction already replaced by a re-signed
 * one is stale and must not decide the acceptance.
 */
function awaitsOutcome(state: AcceptanceState, acceptanceId: string, transactionSignature?: string): boolean {
  if (state.status !== 'submitted' || state.submitted?.acceptanceId !== acceptanceId) return false;
  if (state.submitted.evidenceMode === 'MERKLE_BATCHED') return false;
  return transactionSignature === undefined || state.transaction?.transactionSignature === transactionSignature;
}

function checkSubmission(command: SubmitAcceptanceCommand, state: AcceptanceState): AcceptanceSubmittedData {
  const challenge = command.challenge.issued;
  if (!challenge) throw new DomainError('not_found', 'challenge not found');
  if (!command.bindingMatches) throw new DomainError('forbidden', 'clientBinding does not match this challenge');
  // A challenge is used once its acceptance is submitted: the acceptance's own stream says so (challenges used
  // before the service stopped recording completions on the challenge stream also carry `completedBy`).
  const submittedHere = state.status === 'submitted' || state.status === 'relayed';
  if (command.challenge.completedBy !== null || (submittedHere && state.submitted?.challengeId === challenge.challengeId)) {
    throw new DomainError('challenge_not_open', 'the challenge was already used');
  }
  if (Date.parse(challenge.expiresAt) <= command.now) throw new DomainError('challenge_expired', 'the challenge expired; request a new one');
  if (command.hasPasskeyAssertion) throw new DomainError('invalid_request', 'passkeyAssertion: not accepted for wallet signers');
  if (!command.signature) throw new DomainError('invalid_request', 'signature: required for wallet signers');
  if (!command.signatureValid) throw new DomainError('invalid_signature', 'signature: does not verify for the signer over the challenge message');
  if (command.currentVersionAddress !== challenge.versionAddress) {
    throw new DomainError('version_superseded', 'a newer version was published since the challenge; request a new one');
  }
  if (submittedHere) {
    throw new DomainError('already_accepted', `${challenge.signer} already accepted version ${challenge.versionNumber} of this document`);
  }
  if (!command.submission) throw new DomainError('internal_error', 'a verified submission without its record');
  return command.submission;
}

/** A batch's anchoring is recorded only for the acceptance placed in that batch, once. */
function anchoredInBatch(state: AcceptanceState, relayed: AcceptanceRelayedData): boolean {
  return relayed.batch !== null && placedIn(state, relayed.acceptanceId, relayed.batch);
}

/** Whether the acceptance awaits its outcome, placed in this batch. */
function placedIn(state: AcceptanceState, acceptanceId: string, batch: { lane: number; sequence: number }): boolean {
  const placed = state.batched;
  return state.status === 'submitted' && state.submitted?.acceptanceId === acceptanceId && placed !== null && placed.lane === batch.lane && placed.sequence === batch.sequence;
}

export const acceptanceDecider: Decider<AcceptanceCommand, AcceptanceEvent, AcceptanceState> = {
  eventTypes: ['AcceptanceSubmitted', 'AcceptanceResigned', 'AcceptanceRelayed', 'AcceptanceRelayFailed', 'AcceptanceFinalized', 'AcceptanceBatched'],
  initialState: INITIAL,
  evolve(state, event) {
    switch (event.type) {
      case 'AcceptanceSubmitted': {
        const { transactionSignature, transactionWire, lastValidBlockHeight } = event.data;
        const transaction = transactionSignature !== null && transactionWire !== null && lastValidBlockHeight !== null ? { transactionSignature, transactionWire, lastValidBlockHeight } : null;
        return { ...INITIAL, status: 'submitted', submitted: event.data, transaction };
      }
      case 'AcceptanceBatched':
        return { ...state, batched: event.data };
      case 'AcceptanceResigned': {
        const { transactionSignature, transactionWire, lastValidBlockHeight } = event.data;
        return { ...state, transaction: { transactionSignature, transactionWire, lastValidBlockHeight } };
      }
      case 'AcceptanceRelayed':
        return { ...state, status: 'relayed', relayed: event.data, finalized: event.data.commitment === 'finalized' };
      case 'AcceptanceRelayFailed':
        return { ...state, status: 'failed' };
      case 'AcceptanceFinalized':
        return { ...state, finalized: true };
    }
  },
  /**
   * Outcomes (relayed, failed, re-signed, finalized) for an acceptance that is not waiting for them, or for a
   * transaction that is no longer the one in force, are no-ops: the relay processor is at-least-once. A batched
   * acceptance is placed in one recorded batch only (a placement in a batch never recorded moves, any other is a
   * no-op) and its anchoring, or its failure (an anchor that landed outside the message's validity window), is
   * recorded only for the batch it is placed in.
   * @throws DomainError for a submission: not_found (404), forbidden (403: wrong clientBinding), challenge_not_open
   *   (409), challenge_expired (409), invalid_request (400: passkey assertion, missing signature), invalid_signature
   *   (400), version_superseded (409), already_accepted (409); internal_error (500) for a verified submission
   *   without its record (a caller bug).
   */
  decide(command, state) {
    switch (command.kind) {
      case 'SubmitAcceptance':
        return [{ type: 'AcceptanceSubmitted', data: checkSubmission(command, state) }];
      case 'ResignAcceptance':
        if (!awaitsOutcome(state, command.resigned.acceptanceId) || state.transaction?.transactionSignature !== command.resigned.replaces) return [];
        return [{ type: 'AcceptanceResigned', data: command.resigned }];
      case 'RecordRelayed': {
        const recordable = command.relayed.batch !== null ? anchoredInBatch(state, command.relayed) : awaitsOutcome(state, command.relayed.acceptanceId, command.relayed.transactionSignature);
        return recordable ? relayedEvents(command.relayed) : [];
      }
      case 'PlaceInBatch': {
        const placed = placement(state, command.batched, command.recordedUpTo);
        return placed ? [{ type: 'AcceptanceBatched', data: placed }] : [];
      }
      case 'RecordRelayFailed': {
        const recordable =
          command.batch !== undefined ? placedIn(state, command.failed.acceptanceId, command.batch) : awaitsOutcome(state, command.failed.acceptanceId, command.failed.transactionSignature);
        return recordable ? [{ type: 'AcceptanceRelayFailed', data: command.failed }] : [];
      }
      case 'RecordFinalized':
        if (state.status !== 'relayed' || state.finalized || state.submitted?.acceptanceId !== command.finalized.acceptanceId) return [];
        return [{ type: 'AcceptanceFinalized', data: command.finalized }];
    }
  },
};
