import { existsSync, rmSync } from 'node:fs';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { acceptanceIdOf } from '@svc/evidence';
import { RpcLedger, toAddress, toSignature } from '@svc/ledger';
import { ApiClient, ApiError } from '../apps/cli/src/api-client';
import { apiMain } from '../apps/cli/src/paths';
import { startService, type RunningService } from '../apps/cli/src/service-process';
import {
  acceptancesOnLedger,
  codeOf,
  exited,
  issueChallenge,
  publishThroughDraft,
  submitSigned,
  watchRelayLog,
  type AcceptanceTarget,
  type PendingRelay,
  type IssuedChallenge,
  type SubmitOutcome,
  type SubmitResponse,
} from './support/durability';
import { eventually, publishedDocument } from './support/fixtures';
import { startTestService, tempDataDir, type TestService } from './support/test-service';

interface SignerEvidence {
  acceptances: { acceptanceId: string; transactionSignature: string; versionAddress: string }[];
}

/** The public evidence of a signer, or null while there is none (404). */
async function signerEvidence(client: ApiClient, signer: string): Promise<SignerEvidence | null> {
  const { response, text } = await client.raw('GET', `/v1/public/signers/${signer}`);
  if (response.status === 404) return null;
  if (response.status !== 200) throw new Error(`GET /v1/public/signers/${signer}: ${response.status} ${text}`);
  return JSON.parse(text) as SignerEvidence;
}

const built = existsSync(apiMain());
const BURST = 30;
/** Submissions answered before the rest of the burst is sent. */
const ANSWERED_FIRST = 3;
/**
 * The service kills itself (SIGKILL) when the relay processor has sent this many transactions of the burst without
 * recording their outcome yet (`SVC_TEST_KILL_AT=relay:after-send@n`): the crash point is deterministic, not a
 * race between the test and the service.
 */
const KILLED_AT_SEND = 4;

(built ? describe : describe.skip)(`acceptance relays across a crash of the service (SIGKILL mid-burst)${built ? '' : ' (skipped: run "npm run build" first; npm test does)'}`, () => {
  const dataDir = tempDataDir('svc-durability-');
  const env = { RATE_LIMIT_ACCEPTANCE_PER_MINUTE: '100000', RATE_LIMIT_GENERAL_PER_MINUTE: '100000', LEDGER_SLOT_MS: '100' };
  const crashing = { ...env, NODE_ENV: 'test', SVC_TEST_KILL_AT: `relay:after-send@${ANSWERED_FIRST + KILLED_AT_SEND}` };
  let first: RunningService | undefined;
  let second: RunningService | undefined;

  afterAll(async () => {
    if (first && first.process.exitCode === null && first.process.signalCode === null) {
      first.process.kill('SIGKILL');
      await exited(first.process);
    }
    await second?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every answered acceptance, resumes or frees the interrupted ones, and lands none twice', async () => {
    first = await startService({ dataDir, env: crashing });
    const port = Number(new URL(first.baseUrl).port);
    const doc = await publishedDocument(first, [1]);
    const versionAddress = doc.versions[0].address;
    const target: AcceptanceTarget = { organization: doc.organization.address, document: doc.document.address };
    const before = new ApiClient(first.baseUrl);
    const { relayer } = await before.request<{ relayer: string }>('GET', '/v1/network');

    // Challenges first, so that the crash hits the submissions (sign, record, send, record the outcome).
    const signers: KeyPairSigner[] = await Promise.all(Array.from({ length: BURST }, () => generateKeyPairSigner()));
    const challenges: IssuedChallenge[] = await Promise.all(signers.map((s) => issueChallenge(before, target, s)));

    const child = first.process;
    const relayLog = watchRelayLog(dataDir);
    const outcomes: SubmitOutcome[] = new Array(BURST);
    const submit = async (i: number) => {
      outcomes[i] = await submitSigned(before, challenges[i], signers[i]);
    };
    // The first few submissions are answered; the rest follow at once, all concurrently, and the service dies in
    // the middle of them, at the armed step of a relay.
    await Promise.all(Array.from({ length: ANSWERED_FIRST }, (_, i) => submit(i)));
    await Promise.all(Array.from({ length: BURST - ANSWERED_FIRST }, (_, k) => submit(ANSWERED_FIRST + k)));
    await exited(child);
    expect(child.signalCode).toBe('SIGKILL');
    // What the crash interrupted: relays recorded (transaction signed, maybe sent) without their outcome.
    const pendingAtCrash: PendingRelay[] = relayLog.pending();
    relayLog.close();
    expect(pendingAtCrash.length).toBeGreaterThan(0);

    // Before the crash, a submission either succeeded or got no answer at all.
    const unexpected = outcomes.filter((o) => o.kind === 'api_error').map((o) => (o.kind === 'api_error' ? o.error.message : ''));
    expect(unexpected).toEqual([]);
    const answeredOk = new Map<number, SubmitResponse>();
    outcomes.forEach((o, i) => {
      if (o.kind === 'ok') answeredOk.set(i, o.result);
    });
    const interrupted = outcomes.map((o, i) => (o.kind === 'connection_error' ? i : -1)).filter((i) => i >= 0);
    expect(answeredOk.size).toBeGreaterThanOrEqual(ANSWERED_FIRST);
    expect(interrupted.length).toBeGreaterThan(0);
    expect(answeredOk.size + interrupted.length).toBe(BURST);
    for (const result of answeredOk.values()) expect(result.status).toBe('confirmed');

    // Same data directory, same port.
    second = await startService({ dataDir, port, env });
    const client = new ApiClient(second.baseUrl);
    const ledger = new RpcLedger({ url: second.rpcUrl });
    expect((await client.request<{ relayer: string }>('GET', '/v1/network')).relayer).toBe(relayer);

    // 1. Whatever was answered 200 before the crash is still there, with the same transaction, on the ledger.
    for (const [i, result] of answeredOk) {
      const { acceptance } = await eventually(async () => {
        const { response, text } = await client.raw('GET', `/v1/public/acceptances/${result.acceptanceId}`);
        return response.status === 200 ? (JSON.parse(text) as { acceptance: { transactionSignature: string; signer: string; versionAddress: string } }) : undefined;
      }, 10_000);
      expect(acceptance).toMatchObject({ transactionSignature: result.transactionSignature, signer: signers[i].address, versionAddress });
      const tx = await ledger.getTransaction(toSignature(result.transactionSignature));
      expect(tx).not.toBeNull();
      expect(tx?.err).toBeNull();
    }

    // 2. Every interrupted submission settles: the process manager finishes what was recorded (the signer is
    // refused a new challenge or submission meanwhile: 409 already_accepted), and a signer whose submission
    // was not recorded can accept again with a new challenge. None stays stuck.
    const retried = new Map<number, SubmitResponse>();
    const unsettled = new Set(interrupted);
    await eventually(
      async () => {
        for (const i of [...unsettled]) {
          const signer = signers[i];
          if (await signerEvidence(client, signer.address)) {
            unsettled.delete(i);
            continue;
          }
          let challenge: IssuedChallenge;
          try {
            challenge = await issueChallenge(client, target, signer);
          } catch (err) {
            if (err instanceof ApiError && err.status === 409 && err.code === 'already_accepted') continue; // being resumed
            throw err;
          }
          const outcome = await submitSigned(client, challenge, signer);
          if (outcome.kind === 'ok') {
            expect(outcome.result.status).toBe('confirmed');
            retried.set(i, outcome.result);
            unsettled.delete(i);
          } else if (outcome.kind !== 'api_error' || outcome.error.code !== 'already_accepted') {
            // already_accepted: recorded before the crash, and the read model had not caught up yet.
            throw new Error(`the retry of signer ${i} failed: ${outcome.error.message}`);
          }
        }
        return unsettled.size === 0 ? true : undefined;
      },
      // The relay processor resumes from its checkpoint as soon as the service is up.
      40_000,
      500,
    );

    // The interrupted relays were finished by the process manager, under the acceptance IDs recorded before the
    // crash; when it had to sign anew (expired blockhash), the first transaction never landed.
    const bySigner = new Map<string, number>(signers.map((s, i) => [s.address, i]));
    for (const p of pendingAtCrash) {
      const i = bySigner.get(p.signer)!;
      expect(interrupted).toContain(i);
      expect(retried.has(i)).toBe(false);
      const evidence = await signerEvidence(client, p.signer);
      expect(evidence?.acceptances.map((a) => a.acceptanceId)).toEqual([p.acceptanceId]);
      const final = evidence!.acceptances[0].transactionSignature;
      if (final !== p.transactionSignature) expect(await ledger.getTransaction(toSignature(p.transactionSignature))).toBeNull();
      // The resumed acceptance also closes its challenge, as the submit would have.
      const status = await client.request<{ status: string; acceptanceId: string | null }>('GET', `/v1/acceptance/challenges/${challenges[i].challengeId}`, undefined, {
        headers: { 'x-client-binding': challenges[i].clientBinding },
      });
      expect(status).toMatchObject({ status: 'accepted', acceptanceId: p.acceptanceId });
    }

    // 3. One acceptance per signer, and it is the one the signer was answered, resumed or retried.
    const expectedIds = new Set<string>();
    const publicByAcceptance = new Map<string, string>();
    for (let i = 0; i < BURST; i++) {
      const evidence = await signerEvidence(client, signers[i].address);
      expect(evidence?.acceptances).toHaveLength(1);
      const [only] = evidence!.acceptances;
      expect(only.versionAddress).toBe(versionAddress);
      const expectedId = answeredOk.get(i)?.acceptanceId ?? retried.get(i)?.acceptanceId ?? acceptanceIdOf(challenges[i].message);
      expect(only.acceptanceId).toBe(expectedId);
      if (answeredOk.has(i)) expect(only.transactionSignature).toBe(answeredOk.get(i)!.transactionSignature);
      if (retried.has(i)) expect(only.transactionSignature).toBe(retried.get(i)!.transactionSignature);
      expectedIds.add(only.acceptanceId);
      publicByAcceptance.set(only.acceptanceId, only.transactionSignature);
    }
    expect(expectedIds.size).toBe(BURST);

    // 4. The ledger holds exactly one acceptance transaction per recorded acceptance: none landed twice,
    // none landed without being recorded.
    const onLedger = await acceptancesOnLedger(ledger, relayer);
    const ledgerIds = onLedger.map((a) => a.acceptanceId);
    expect(new Set(ledgerIds).size).toBe(ledgerIds.length);
    expect(ledgerIds.length).toBe(expectedIds.size);
    expect(new Set(ledgerIds)).toEqual(expectedIds);
    for (const a of onLedger) {
      expect(a.feePayer).toBe(relayer);
      expect(a.versionAddress).toBe(versionAddress);
      expect(a.transactionSignature).toBe(publicByAcceptance.get(a.acceptanceId));
    }
  });
});

describe('a relay the ledger refuses (unfunded relayer)', () => {
  let service: TestService;
  beforeAll(async () => {
    // With a minimum balance of 0 the service never airdrops to its relayer: it starts with nothing to pay fees.
    service = await startTestService({ env: { RELAYER_MIN_BALANCE_LAMPORTS: '0', LOG_LEVEL: 'error' } });
  });
  afterAll(() => service.destroy());

  it('answers 502 relay_failed with the reason, publishes nothing, and lets the signer retry once the relayer is funded', async () => {
    const client = new ApiClient(service.baseUrl);
    const doc = await publishedDocument(service, [1]);
    const target: AcceptanceTarget = { organization: doc.organization.address, document: doc.document.address };
    const { relayer } = await client.request<{ relayer: string }>('GET', '/v1/network');
    expect(await doc.ledger.getBalance(relayer)).toBe(0n);

    const signer = await generateKeyPairSigner();
    const refusedChallenge = await issueChallenge(client, target, signer);
    const refused = await submitSigned(client, refusedChallenge, signer);
    if (refused.kind !== 'api_error') throw new Error(`expected 502 relay_failed, got ${refused.kind}`);
    expect({ status: refused.error.status, code: refused.error.code }).toEqual({ status: 502, code: 'relay_failed' });
    // The message says why: the fee payer has no lamports.
    expect(refused.error.message).toMatch(/ledger refused the acceptance: .*(debit an account|no record of a prior credit|insufficient funds)/i);
    // The failure is recorded before the answer: the signer may ask for a new challenge at once.
    expect(await codeOf(issueChallenge(client, target, signer))).toBe('ok');

    expect(await codeOf(client.request('GET', `/v1/public/signers/${signer.address}`))).toBe('404 not_found');
    expect(await codeOf(client.request('GET', `/v1/public/acceptances/${acceptanceIdOf(refusedChallenge.message)}`))).toBe('404 not_found');
    expect(await acceptancesOnLedger(doc.ledger, relayer)).toEqual([]);

    // Fund the relayer through the public JSON-RPC endpoint, then the same signer accepts the same version.
    await doc.ledger.requestAirdrop(toAddress(relayer), 1_000_000_000n);
    const challenge = await issueChallenge(client, target, signer);
    const retry = await submitSigned(client, challenge, signer);
    if (retry.kind !== 'ok') throw new Error(`the retry failed: ${retry.error.message}`);
    expect(retry.result.status).toBe('confirmed');
    expect(retry.result.acceptanceId).toBe(acceptanceIdOf(challenge.message));

    const evidence = await client.request<SignerEvidence>('GET', `/v1/public/signers/${signer.address}`);
    expect(evidence.acceptances.map((a) => a.acceptanceId)).toEqual([retry.result.acceptanceId]);
    const tx = await doc.ledger.getTransaction(toSignature(retry.result.transactionSignature));
    expect(tx?.err).toBeNull();
    expect((await acceptancesOnLedger(doc.ledger, relayer)).map((a) => a.acceptanceId)).toEqual([retry.result.acceptanceId]);

    // The refused challenge is still open, but it cannot land a second acceptance for the signer.
    const late = await submitSigned(client, refusedChallenge, signer);
    expect(late.kind === 'api_error' ? `${late.error.status} ${late.error.code}` : late.kind).toBe('409 already_accepted');
    expect(await codeOf(issueChallenge(client, target, signer))).toBe('409 already_accepted');
    expect((await acceptancesOnLedger(doc.ledger, relayer)).length).toBe(1);
  });
});

describe('a draft that was published', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.destroy());

  it('can be neither edited nor prepared (published) again: 409 draft_published', async () => {
    const doc = await publishedDocument(service, []);
    const { draftId, version } = await publishThroughDraft(doc, 1);
    expect(version.number).toBe(1);
    const { draft } = await doc.dashboard.request<{ draft: { status: string; publishedVersion: string } }>('GET', `/v1/drafts/${draftId}`);
    expect(draft).toMatchObject({ status: 'published', publishedVersion: version.address });

    expect(await codeOf(doc.dashboard.request('PATCH', `/v1/drafts/${draftId}`, { title: 'Terms of Service (edited)' }))).toBe('409 draft_published');
    expect(await codeOf(doc.dashboard.request('PATCH', `/v1/drafts/${draftId}`, { source: '# Something else entirely\n' }))).toBe('409 draft_published');
    expect(await codeOf(doc.dashboard.request('POST', `/v1/drafts/${draftId}/prepare`))).toBe('409 draft_published');
    expect(await codeOf(doc.dashboard.request('POST', `/v1/drafts/${draftId}/abandon`))).toBe('409 draft_published');

    // Nothing changed: the draft and the document's versions are as published.
    const after = await doc.dashboard.request<{ draft: { status: string; title: string } }>('GET', `/v1/drafts/${draftId}`);
    expect(after.draft).toMatchObject({ status: 'published', title: 'Terms of Service' });
    const detail = await doc.dashboard.request<{ versions: { address: string }[] }>('GET', `/v1/documents/${doc.document.id}`);
    expect(detail.versions.map((v) => v.address)).toEqual([version.address]);

    // The next version goes through a new draft.
    const next = await publishThroughDraft(doc, 2);
    expect(next.version.number).toBe(2);
    expect(next.draftId).not.toBe(draftId);
  });
});
