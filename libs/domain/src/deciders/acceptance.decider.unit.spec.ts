/**
 * Acceptance stream `acceptance-<version>-<signer>` (spec §3, §4.4 submit; docs/api.md "Signing an acceptance";
 * docs/architecture.md "Relay"): one acceptance per signer and version; refusals in the documented order; relay
 * outcomes recorded at most once; a new submission allowed after a relay failure.
 */
import type { AcceptanceResignedData, EventOf } from '../events';
import { A, acceptanceSubmitted, batchedSubmission, CHALLENGE_EXPIRES_AT, CHALLENGE_OPEN_AT, challengeIssued, HEX, SIG } from '../testing/fixtures';
import { decided, given, refused } from '../testing/given-when-then';
import { acceptanceDecider, type AcceptanceCommand, type AcceptanceEvent, type SubmitAcceptanceCommand } from './acceptance.decider';
import type { ChallengeState } from './challenge.decider';

const WALLET_SIGNATURE = '4NKL5VB2MQ2i8s5FwgDJGWsJSbempX15YubwhGJoKzsqYcfpVtDedPsrVcxgMwuTPQXvHsH1o8tc6j878mSMs3xo';

const open: ChallengeState = { issued: challengeIssued(), completedBy: null };
const submitted1 = acceptanceSubmitted(HEX.acceptance1, A.challengeId, SIG.acc1);
const submitted: EventOf<'AcceptanceSubmitted'> = { type: 'AcceptanceSubmitted', data: submitted1 };
const relayed = (commitment: 'confirmed' | 'finalized' = 'confirmed', acceptanceId: string = HEX.acceptance1, signature: string = SIG.acc1): EventOf<'AcceptanceRelayed'> => ({
  type: 'AcceptanceRelayed',
  data: { acceptanceId, transactionSignature: signature, slot: 3_120_512, blockTime: 1_741_944_431, feeLamports: 10_000, commitment, batch: null },
});
const failed: EventOf<'AcceptanceRelayFailed'> = {
  type: 'AcceptanceRelayFailed',
  data: {
    acceptanceId: HEX.acceptance1,
    transactionSignature: SIG.acc1,
    reason: 'InsufficientFundsForFee: the fee payer cannot pay the fee',
    logs: [],
  },
};
const resignedData: AcceptanceResignedData = {
  acceptanceId: HEX.acceptance1,
  transactionSignature: SIG.acc2,
  transactionWire: 'AUbX2iQ9aP0mZ7cR4tY1uV8wN3eL6kJ5hG2fD0sA9qWx',
  lastValidBlockHeight: '3120755',
  replaces: SIG.acc1,
};
const resigned: EventOf<'AcceptanceResigned'> = { type: 'AcceptanceResigned', data: resignedData };
const finalized: EventOf<'AcceptanceFinalized'> = { type: 'AcceptanceFinalized', data: { acceptanceId: HEX.acceptance1, transactionSignature: SIG.acc1, slot: 3_120_545 } };

const submit = (over: Partial<SubmitAcceptanceCommand> = {}): SubmitAcceptanceCommand => ({
  kind: 'SubmitAcceptance',
  challenge: open,
  bindingMatches: true,
  hasPasskeyAssertion: false,
  signature: WALLET_SIGNATURE,
  signatureValid: true,
  currentVersionAddress: A.v1,
  now: CHALLENGE_OPEN_AT,
  submission: submitted1,
  ...over,
});

describe('acceptance decider: submission', () => {
  it('records the signed submission of an open challenge', () => {
    expect(given(acceptanceDecider).when(submit())).toEqual(decided(submitted));
  });

  it('accepts a submission up to the last millisecond of the challenge', () => {
    expect(given(acceptanceDecider).when(submit({ now: CHALLENGE_EXPIRES_AT - 1 }))).toEqual(decided(submitted));
  });

  it.each<[string, Partial<SubmitAcceptanceCommand>, string]>([
    ['an unknown challenge', { challenge: { issued: null, completedBy: null } }, 'not_found'],
    ['a wrong clientBinding', { bindingMatches: false }, 'forbidden'],
    ['a challenge already used', { challenge: { ...open, completedBy: HEX.acceptance1 } }, 'challenge_not_open'],
    ['an expired challenge, from the instant it expires', { now: CHALLENGE_EXPIRES_AT }, 'challenge_expired'],
    ['a passkey assertion from a wallet signer', { hasPasskeyAssertion: true }, 'invalid_request'],
    ['a missing signature', { signature: undefined, signatureValid: false, submission: null }, 'invalid_request'],
    ['an empty signature', { signature: '', signatureValid: false, submission: null }, 'invalid_request'],
    ['a signature that does not verify', { signatureValid: false, submission: null }, 'invalid_signature'],
    ['a challenge for a version no longer current', { currentVersionAddress: A.v2 }, 'version_superseded'],
    ['a document without a current version on the write side', { currentVersionAddress: null }, 'version_superseded'],
    ['a verified submission without its record', { submission: null }, 'internal_error'],
  ])('refuses %s with %s', (_what, over, code) => {
    expect(given(acceptanceDecider).when(submit(over))).toEqual({ refused: code });
  });

  it('refuses a second use of the same challenge with challenge_not_open, as the acceptance stream records its use', () => {
    expect(given(acceptanceDecider, [submitted]).when(submit())).toEqual(refused('challenge_not_open'));
    expect(given(acceptanceDecider, [submitted, relayed()]).when(submit())).toEqual(refused('challenge_not_open'));
    // In the place of that rule: before expiry, the passkey, signature and version rules.
    expect(given(acceptanceDecider, [submitted, relayed()]).when(submit({ now: CHALLENGE_EXPIRES_AT, signatureValid: false, submission: null }))).toEqual(
      refused('challenge_not_open'),
    );
    expect(given(acceptanceDecider, [submitted]).when(submit({ currentVersionAddress: A.v2 }))).toEqual(refused('challenge_not_open'));
  });

  it('refuses another challenge of a signer who accepted (or is being relayed) with already_accepted', () => {
    const other = submit({ challenge: { issued: challengeIssued(A.otherChallengeId), completedBy: null } });
    expect(given(acceptanceDecider, [submitted, relayed()]).when(other)).toEqual(refused('already_accepted'));
    expect(given(acceptanceDecider, [submitted]).when(other)).toEqual(refused('already_accepted'));
    expect(given(acceptanceDecider, [submitted, relayed(), finalized]).when(other)).toEqual(refused('already_accepted'));
  });

  it('checks not_found → forbidden → challenge_not_open → challenge_expired → invalid_request → invalid_signature → version_superseded → already_accepted', () => {
    const otherChallenge = challengeIssued(A.otherChallengeId);
    const steps: [Partial<SubmitAcceptanceCommand>, string][] = [
      [{ challenge: { issued: null, completedBy: HEX.acceptance2 }, bindingMatches: false, now: CHALLENGE_EXPIRES_AT, hasPasskeyAssertion: true, signature: undefined, signatureValid: false, currentVersionAddress: A.v2, submission: null }, 'not_found'],
      [{ challenge: { issued: otherChallenge, completedBy: HEX.acceptance2 } }, 'forbidden'],
      [{ bindingMatches: true }, 'challenge_not_open'],
      [{ challenge: { issued: otherChallenge, completedBy: null } }, 'challenge_expired'],
      [{ now: CHALLENGE_OPEN_AT }, 'invalid_request'],
      [{ hasPasskeyAssertion: false }, 'invalid_request'],
      [{ signature: WALLET_SIGNATURE }, 'invalid_signature'],
      [{ signatureValid: true }, 'version_superseded'],
      [{ currentVersionAddress: A.v1 }, 'already_accepted'],
    ];
    // The stream holds a relayed acceptance from another challenge: the last rule refuses even a perfect submission.
    const s = given(acceptanceDecider, [submitted, relayed()]);
    let command = submit();
    const seen: string[] = [];
    for (const [change] of steps) {
      command = { ...command, ...change };
      const outcome = s.when(command);
      seen.push('refused' in outcome ? outcome.refused : 'decided');
    }
    expect(seen).toEqual(steps.map(([, code]) => code));
  });

  it('after a relay failure the signer may submit again: the same challenge with a new transaction, or a new challenge', () => {
    const history = [submitted, failed];
    const again = acceptanceSubmitted(HEX.acceptance1, A.challengeId, SIG.acc3);
    expect(given(acceptanceDecider, history).when(submit({ submission: again }))).toEqual(decided({ type: 'AcceptanceSubmitted', data: again }));

    const fresh = acceptanceSubmitted(HEX.acceptance2, A.otherChallengeId, SIG.acc3);
    const viaNewChallenge = submit({ challenge: { issued: challengeIssued(A.otherChallengeId), completedBy: null }, submission: fresh });
    expect(given(acceptanceDecider, history).when(viaNewChallenge)).toEqual(decided({ type: 'AcceptanceSubmitted', data: fresh }));

    // The new attempt waits for its own outcome; the first attempt's id is no longer waited for.
    const after = [...history, { type: 'AcceptanceSubmitted' as const, data: fresh }];
    expect(given(acceptanceDecider, after).when({ kind: 'RecordRelayed', relayed: relayed('confirmed', HEX.acceptance2, SIG.acc3).data })).toEqual(
      decided(relayed('confirmed', HEX.acceptance2, SIG.acc3)),
    );
    expect(given(acceptanceDecider, after).when({ kind: 'RecordRelayFailed', failed: failed.data })).toEqual(decided());
  });

  it('refuses a new submission while a relay after a failure is in flight again with challenge_not_open', () => {
    const again = acceptanceSubmitted(HEX.acceptance1, A.challengeId, SIG.acc3);
    expect(given(acceptanceDecider, [submitted, failed, { type: 'AcceptanceSubmitted', data: again }]).when(submit())).toEqual(refused('challenge_not_open'));
  });
});

describe('acceptance decider: relay outcomes (at-least-once)', () => {
  const record = (command: AcceptanceCommand) => command;
  const relay = (commitment: 'confirmed' | 'finalized' = 'confirmed') => record({ kind: 'RecordRelayed', relayed: relayed(commitment).data });
  const fail = record({ kind: 'RecordRelayFailed', failed: failed.data });
  const resign = (data: AcceptanceResignedData = resignedData) => record({ kind: 'ResignAcceptance', resigned: data });
  const finalize = record({ kind: 'RecordFinalized', finalized: finalized.data });

  it('records the landing of the submitted transaction, and its finality when it was already final', () => {
    expect(given(acceptanceDecider, [submitted]).when(relay())).toEqual(decided(relayed()));
    const finalizedAtOnce: EventOf<'AcceptanceFinalized'> = { type: 'AcceptanceFinalized', data: { acceptanceId: HEX.acceptance1, transactionSignature: SIG.acc1, slot: 3_120_512 } };
    expect(given(acceptanceDecider, [submitted]).when(relay('finalized'))).toEqual(decided<AcceptanceEvent>(relayed('finalized'), finalizedAtOnce));
    expect(given(acceptanceDecider, [submitted, relayed('finalized'), finalizedAtOnce]).when(finalize)).toEqual(decided());
    expect(given(acceptanceDecider, [submitted, relayed('finalized')]).state.finalized).toBe(true);
  });

  it('records a refusal by the ledger', () => {
    expect(given(acceptanceDecider, [submitted]).when(fail)).toEqual(decided(failed));
    expect(given(acceptanceDecider, [submitted, failed]).state.status).toBe('failed');
  });

  it('records a re-signing of the transaction in force, which then becomes the one in force', () => {
    expect(given(acceptanceDecider, [submitted]).when(resign())).toEqual(decided(resigned));
    const { transactionSignature, transactionWire, lastValidBlockHeight } = resignedData;
    expect(given(acceptanceDecider, [submitted, resigned]).state.transaction).toEqual({ transactionSignature, transactionWire, lastValidBlockHeight });
    const second: AcceptanceResignedData = { ...resignedData, transactionSignature: SIG.acc3, replaces: SIG.acc2 };
    expect(given(acceptanceDecider, [submitted, resigned]).when(resign(second))).toEqual(decided({ type: 'AcceptanceResigned', data: second }));
    const landedResigned = relayed('confirmed', HEX.acceptance1, resignedData.transactionSignature);
    expect(given(acceptanceDecider, [submitted, resigned]).when(record({ kind: 'RecordRelayed', relayed: landedResigned.data }))).toEqual(decided(landedResigned));
  });

  it('an outcome of a transaction replaced by a re-signing is stale and decides nothing', () => {
    expect(given(acceptanceDecider, [submitted, resigned]).when(relay())).toEqual(decided());
    expect(given(acceptanceDecider, [submitted, resigned]).when(fail)).toEqual(decided());
  });

  it('a re-signing that replaces a transaction no longer in force decides nothing', () => {
    expect(given(acceptanceDecider, [submitted, resigned]).when(resign())).toEqual(decided());
  });

  it.each<[string, EventOf<'AcceptanceRelayed'>[] | (typeof failed)[]]>([
    ['relayed', [relayed()]],
    ['failed', [failed]],
  ])('once %s, every further outcome decides nothing', (_what, outcome) => {
    const s = given(acceptanceDecider, [submitted, ...outcome]);
    expect(s.when(relay())).toEqual(decided());
    expect(s.when(fail)).toEqual(decided());
    expect(s.when(resign())).toEqual(decided());
  });

  it('outcomes for another acceptance id, or before any submission, decide nothing', () => {
    const other = { acceptanceId: HEX.acceptance2 };
    const s = given(acceptanceDecider, [submitted]);
    expect(s.when({ kind: 'RecordRelayed', relayed: { ...relayed().data, ...other } })).toEqual(decided());
    expect(s.when({ kind: 'RecordRelayFailed', failed: { ...failed.data, ...other } })).toEqual(decided());
    expect(s.when({ kind: 'ResignAcceptance', resigned: { ...resignedData, ...other } })).toEqual(decided());
    expect(given(acceptanceDecider).when(relay())).toEqual(decided());
    expect(given(acceptanceDecider).when(finalize)).toEqual(decided());
  });

  it('records finality of a relayed acceptance once', () => {
    expect(given(acceptanceDecider, [submitted, relayed()]).when(finalize)).toEqual(decided(finalized));
    expect(given(acceptanceDecider, [submitted, relayed(), finalized]).when(finalize)).toEqual(decided());
    expect(given(acceptanceDecider, [submitted, relayed('finalized')]).when(finalize)).toEqual(decided());
  });

  it('finality of an acceptance not relayed, or of another acceptance id, decides nothing', () => {
    expect(given(acceptanceDecider, [submitted]).when(finalize)).toEqual(decided());
    expect(given(acceptanceDecider, [submitted, failed]).when(finalize)).toEqual(decided());
    const other = record({ kind: 'RecordFinalized', finalized: { ...finalized.data, acceptanceId: HEX.acceptance2 } });
    expect(given(acceptanceDecider, [submitted, relayed()]).when(other)).toEqual(decided());
  });
});

describe('acceptance decider: batched evidence', () => {
  const batchedData = batchedSubmission(HEX.acceptance1, A.challengeId);
  const batchedSubmitted: EventOf<'AcceptanceSubmitted'> = { type: 'AcceptanceSubmitted', data: batchedData };
  const place = (sequence = 4, recordedUpTo = sequence - 1): AcceptanceCommand => ({ kind: 'PlaceInBatch', batched: { acceptanceId: HEX.acceptance1, lane: 1, sequence }, recordedUpTo });
  const placed: EventOf<'AcceptanceBatched'> = { type: 'AcceptanceBatched', data: { acceptanceId: HEX.acceptance1, lane: 1, sequence: 4 } };
  const anchored = (sequence = 4): EventOf<'AcceptanceRelayed'> => ({
    type: 'AcceptanceRelayed',
    data: {
      acceptanceId: HEX.acceptance1,
      transactionSignature: SIG.acc2,
      slot: 3_120_600,
      blockTime: 1_741_944_440,
      feeLamports: 2_500,
      commitment: 'confirmed',
      batch: { lane: 1, sequence, size: 2, root: HEX.content1, leafIndex: 1 },
    },
  });

  it('records a batched submission without a transaction of its own; the relay has nothing to send', () => {
    expect(given(acceptanceDecider).when(submit({ submission: batchedData }))).toEqual(decided(batchedSubmitted));
    expect(given(acceptanceDecider, [batchedSubmitted]).state).toMatchObject({ status: 'submitted', transaction: null, batched: null });
  });

  it('places it in one batch; placing it again in that batch, or in another once that one is recorded, is a no-op', () => {
    expect(given(acceptanceDecider, [batchedSubmitted]).when(place())).toEqual(decided(placed));
    expect(given(acceptanceDecider, [batchedSubmitted, placed]).when(place())).toEqual(decided());
    expect(given(acceptanceDecider, [batchedSubmitted, placed]).when(place(5, 4))).toEqual(decided());
  });

  it('moves a placement whose batch was never recorded (the batcher stopped between placing and closing)', () => {
    const moved: EventOf<'AcceptanceBatched'> = { type: 'AcceptanceBatched', data: { acceptanceId: HEX.acceptance1, lane: 1, sequence: 5 } };
    expect(given(acceptanceDecider, [batchedSubmitted, placed]).when(place(5, 3))).toEqual(decided(moved));
    expect(given(acceptanceDecider, [batchedSubmitted, placed, moved]).state.batched).toEqual(moved.data);
  });

  it('does not place a direct-mode acceptance, nor one already anchored', () => {
    expect(given(acceptanceDecider, [submitted]).when(place())).toEqual(decided());
    expect(given(acceptanceDecider, [batchedSubmitted, placed, anchored()]).when(place())).toEqual(decided());
  });

  it("records the anchoring of the acceptance's own batch once, and nothing for another batch or an unplaced acceptance", () => {
    expect(given(acceptanceDecider, [batchedSubmitted, placed]).when({ kind: 'RecordRelayed', relayed: anchored().data })).toEqual(decided(anchored()));
    expect(given(acceptanceDecider, [batchedSubmitted, placed, anchored()]).when({ kind: 'RecordRelayed', relayed: anchored().data })).toEqual(decided());
    expect(given(acceptanceDecider, [batchedSubmitted, placed]).when({ kind: 'RecordRelayed', relayed: anchored(5).data })).toEqual(decided());
    expect(given(acceptanceDecider, [batchedSubmitted]).when({ kind: 'RecordRelayed', relayed: anchored().data })).toEqual(decided());
  });

  it('a direct-mode outcome never decides a batched acceptance', () => {
    expect(given(acceptanceDecider, [batchedSubmitted, placed]).when({ kind: 'RecordRelayed', relayed: relayed().data })).toEqual(decided());
    expect(given(acceptanceDecider, [batchedSubmitted, placed]).when({ kind: 'RecordRelayFailed', failed: failed.data })).toEqual(decided());
  });

  it("records a failure (an anchor landed outside the message's window) for the acceptance's own batch only, once; the signer may then accept again", () => {
    const late: EventOf<'AcceptanceRelayFailed'> = {
      type: 'AcceptanceRelayFailed',
      data: { acceptanceId: HEX.acceptance1, transactionSignature: SIG.acc2, reason: "the batch anchor landed outside the message's validity window", logs: [] },
    };
    const fail = (sequence = 4): AcceptanceCommand => ({ kind: 'RecordRelayFailed', failed: late.data, batch: { lane: 1, sequence } });
    expect(given(acceptanceDecider, [batchedSubmitted, placed]).when(fail())).toEqual(decided(late));
    expect(given(acceptanceDecider, [batchedSubmitted, placed, late]).when(fail())).toEqual(decided());
    expect(given(acceptanceDecider, [batchedSubmitted, placed]).when(fail(5))).toEqual(decided());
    expect(given(acceptanceDecider, [batchedSubmitted]).when(fail())).toEqual(decided());
    expect(given(acceptanceDecider, [batchedSubmitted, placed, anchored()]).when(fail())).toEqual(decided());
    // A direct-mode acceptance is never failed through a batch.
    expect(given(acceptanceDecider, [submitted]).when(fail())).toEqual(decided());
    const again = batchedSubmission(HEX.acceptance2, A.otherChallengeId);
    const other = { issued: challengeIssued(A.otherChallengeId), completedBy: null };
    expect(given(acceptanceDecider, [batchedSubmitted, placed, late]).when(submit({ challenge: other, submission: again }))).toEqual(
      decided({ type: 'AcceptanceSubmitted', data: again }),
    );
  });

  it('refuses a second submission while the batched one waits for its batch', () => {
    const other = { ...open, issued: { ...open.issued!, challengeId: 'b3a0c6de-5f34-4c1e-9d7a-2f8e1b6c4a90' } };
    expect(given(acceptanceDecider, [batchedSubmitted, placed]).when(submit({ challenge: other }))).toEqual(refused('already_accepted'));
  });

  it('finalizes a batched acceptance once its batch is anchored', () => {
    const fin: EventOf<'AcceptanceFinalized'> = { type: 'AcceptanceFinalized', data: { acceptanceId: HEX.acceptance1, transactionSignature: SIG.acc2, slot: 3_120_632 } };
    expect(given(acceptanceDecider, [batchedSubmitted, placed, anchored()]).when({ kind: 'RecordFinalized', finalized: fin.data })).toEqual(decided(fin));
  });
});
