import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { buildPublicationTransaction, parseEvidenceTransaction, type EvidenceTransaction } from '@svc/evidence';
import { toAddress, toSignature, type Ledger, type Signature } from '@svc/ledger';
import { ApiClient, ApiError } from '../../apps/cli/src/api-client';
import { signText, type PublishedVersion } from '../../apps/cli/src/operations';
import { startService, type RunningService } from '../../apps/cli/src/service-process';
import { publishedDocument, termsOfService, type PublishedDocument } from './fixtures';
import { tempDataDir } from './test-service';

/** The site asking for signatures in these tests. */
export const ORIGIN = 'https://shop.example.com';

/** Organization and document addresses, as a challenge request names them. */
export interface AcceptanceTarget {
  organization: string;
  document: string;
}

export interface IssuedChallenge {
  challengeId: string;
  message: string;
  clientBinding: string;
  expiresAt: string;
  evidenceMode: 'DIRECT_ONCHAIN' | 'MERKLE_BATCHED';
}

export interface SubmitResponse {
  acceptanceId: string;
  transactionSignature: string;
  slot: number;
  status: string;
}

/** How a submission ended, from the client's side. */
export type SubmitOutcome =
  | { kind: 'ok'; result: SubmitResponse }
  | { kind: 'api_error'; error: ApiError }
  /** No HTTP answer at all (the service died with the request in flight). */
  | { kind: 'connection_error'; error: Error };

/** `"ok"`, `"<status> <code>"` for an API error, or `"thrown <message>"` for anything else. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    return err instanceof ApiError ? `${err.status} ${err.code}` : `thrown ${(err as Error).message}`;
  }
}

export function issueChallenge(client: ApiClient, target: AcceptanceTarget, signer: KeyPairSigner, origin = ORIGIN): Promise<IssuedChallenge> {
  return client.request<IssuedChallenge>('POST', '/v1/acceptance/challenges', { ...target, signer: signer.address }, { origin });
}

/** Signs the challenge's exact message and submits it; never throws. */
export async function submitSigned(client: ApiClient, challenge: IssuedChallenge, signer: KeyPairSigner, origin = ORIGIN): Promise<SubmitOutcome> {
  const signature = await signText(signer, challenge.message);
  try {
    const result = await client.request<SubmitResponse>(
      'POST',
      `/v1/acceptance/challenges/${challenge.challengeId}/submit`,
      { clientBinding: challenge.clientBinding, signature },
      { origin },
    );
    return { kind: 'ok', result };
  } catch (err) {
    if (err instanceof ApiError) return { kind: 'api_error', error: err };
    return { kind: 'connection_error', error: err as Error };
  }
}

/** Resolves once the child process has exited (at once when it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** An acceptance memo (`svc/1 accept …`) carried by a successful transaction on the ledger. */
export interface AcceptanceOnLedger {
  transactionSignature: string;
  acceptanceId: string;
  versionAddress: string;
  feePayer: string;
}

/**
 * Every successful transaction referencing `address` (all pages of getSignaturesForAddress) that carries an
 * acceptance memo, read back from the ledger and decoded with the evidence library.
 */
export async function acceptancesOnLedger(ledger: Ledger, address: string): Promise<AcceptanceOnLedger[]> {
  const found: AcceptanceOnLedger[] = [];
  for (const { signature, parsed } of await successfulTransactions(ledger, address)) {
    for (const memo of parsed.memos) {
      if (memo.record?.kind !== 'accept') continue;
      found.push({ transactionSignature: signature, acceptanceId: memo.record.acceptanceId, versionAddress: memo.record.versionAddress, feePayer: parsed.feePayer });
    }
  }
  return found;
}

/** A batch anchor memo (`svc/1 batch …`) carried by a successful transaction on the ledger. */
export interface BatchAnchorOnLedger {
  transactionSignature: string;
  lane: number;
  sequence: number;
  size: number;
  root: string;
}

/** Every batch anchor memo in the successful transactions referencing `address` (the relayer). */
export async function batchAnchorsOnLedger(ledger: Ledger, address: string): Promise<BatchAnchorOnLedger[]> {
  const found: BatchAnchorOnLedger[] = [];
  for (const { signature, parsed } of await successfulTransactions(ledger, address)) {
    for (const memo of parsed.memos) {
      if (memo.record?.kind !== 'batch') continue;
      const { lane, sequence, size, root } = memo.record;
      found.push({ transactionSignature: signature, lane, sequence, size, root });
    }
  }
  return found;
}

/** Every successful transaction referencing `address` (all pages of getSignaturesForAddress), decoded. */
async function successfulTransactions(ledger: Ledger, address: string): Promise<{ signature: Signature; parsed: EvidenceTransaction }[]> {
  const signatures: Signature[] = [];
  let before: Signature | undefined;
  for (;;) {
    const page = await ledger.getSignaturesForAddress(toAddress(address), { limit: 1000, ...(before ? { before } : {}) });
    signatures.push(...page.filter((s) => s.err === null).map((s) => s.signature));
    if (page.length < 1000) break;
    before = page[page.length - 1].signature;
  }
  const found: { signature: Signature; parsed: EvidenceTransaction }[] = [];
  for (const signature of signatures) {
    const tx = await ledger.getTransaction(toSignature(signature));
    if (tx && tx.err === null) found.push({ signature, parsed: parseEvidenceTransaction(tx.wire) });
  }
  return found;
}

/**
 * Publishes ToS version `n` as the next version of the document through the dashboard — draft, prepare, the
 * publication transaction signed by the owner, confirm (the steps of the CLI's publishVersion) — and returns
 * the draft's id with the recorded version (the document view does not list drafts).
 */
export async function publishThroughDraft(doc: PublishedDocument, n: 1 | 2 | 3 | 4): Promise<{ draftId: string; version: PublishedVersion }> {
  const { draft } = await doc.dashboard.request<{ draft: { id: string } }>('POST', `/v1/documents/${doc.document.id}/drafts`, {
    title: 'Terms of Service',
    versionLabel: `v${n}`,
    source: termsOfService(n),
    effectiveAt: null,
  });
  const { publication } = await doc.dashboard.request<{
    publication: { document: string; number: number; label: string; title: string; contentHash: string; fingerprint: string; effectiveAt: number | null };
  }>('POST', `/v1/drafts/${draft.id}/prepare`);
  const versionKey = await generateKeyPairSigner();
  const lifetime = await doc.ledger.getLatestBlockhash();
  const tx = await buildPublicationTransaction({ authority: doc.owner, version: versionKey, ...publication, lifetime });
  const signature = await doc.ledger.sendTransaction(tx.wire, { commitment: 'confirmed' });
  const { version } = await doc.dashboard.request<{ version: PublishedVersion }>('POST', '/v1/publications/confirm', { signature });
  doc.versions.push(version);
  return { draftId: draft.id, version };
}

/** Relay progress as the service's event log records it (embedded SQLite store, read by another connection). */
export interface RelayProgress {
  /** `AcceptanceSubmitted` events: transactions signed and recorded. */
  submitted: number;
  /** Outcomes recorded: `AcceptanceRelayed` + `AcceptanceRelayFailed`. */
  outcomes: number;
}

/** A relay the log records without its outcome: the transaction it last signed for the acceptance. */
export interface PendingRelay {
  acceptanceId: string;
  signer: string;
  transactionSignature: string;
}

const RELAY_EVENTS = `('AcceptanceSubmitted', 'AcceptanceResigned', 'AcceptanceRelayed', 'AcceptanceRelayFailed')`;

/**
 * Watches the embedded event store of a service (`<dataDir>/events.sqlite`, WAL: another process may read it
 * while the service writes, and after it died) — an observation point to time a crash and see what it
 * interrupted, never a way to change state.
 */
export function watchRelayLog(dataDir: string): { progress(): RelayProgress; pending(): PendingRelay[]; close(): void } {
  const db = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  const counts = db.prepare<[], { type: string; n: number }>(`SELECT type, COUNT(*) AS n FROM events WHERE type IN ${RELAY_EVENTS} GROUP BY type`);
  const events = db.prepare<[], { stream_id: string; type: string; data: string }>(
    `SELECT stream_id, type, data FROM events WHERE type IN ${RELAY_EVENTS} ORDER BY position`,
  );
  return {
    progress() {
      const n = Object.fromEntries(counts.all().map((r) => [r.type, r.n]));
      return { submitted: n.AcceptanceSubmitted ?? 0, outcomes: (n.AcceptanceRelayed ?? 0) + (n.AcceptanceRelayFailed ?? 0) };
    },
    pending() {
      const last = new Map<string, PendingRelay | null>();
      for (const row of events.all()) {
        const data = JSON.parse(row.data) as { acceptanceId: string; signer?: string; transactionSignature: string };
        if (row.type === 'AcceptanceSubmitted') {
          last.set(row.stream_id, { acceptanceId: data.acceptanceId, signer: data.signer ?? '', transactionSignature: data.transactionSignature });
        } else if (row.type === 'AcceptanceResigned') {
          const p = last.get(row.stream_id);
          if (p) last.set(row.stream_id, { ...p, transactionSignature: data.transactionSignature });
        } else {
          last.set(row.stream_id, null);
        }
      }
      return [...last.values()].filter((p): p is PendingRelay => p !== null);
    },
    close() {
      if (db.open) db.close();
    },
  };
}

/** What a crash scenario gets: the first service (armed to die at the point) with a published document, and a restart. */
export interface CrashScenario {
  dataDir: string;
  first: RunningService;
  doc: PublishedDocument;
  /** Starts the service again on the same data and port, unarmed (stopped by the scenario's cleanup). */
  restart(): Promise<RunningService>;
}

/**
 * Runs `body` against a real service process armed with `SVC_TEST_KILL_AT=<point>` (NODE_ENV=test), on a fresh data
 * directory removed afterwards, with a document published; kills and stops whatever is still running at the end.
 */
export async function crashScenario(prefix: string, env: Record<string, string>, point: string, body: (scenario: CrashScenario) => Promise<void>): Promise<void> {
  const dataDir = tempDataDir(prefix);
  let first: RunningService | undefined;
  let second: RunningService | undefined;
  try {
    first = await startService({ dataDir, env: { ...env, NODE_ENV: 'test', SVC_TEST_KILL_AT: point } });
    const port = Number(new URL(first.baseUrl).port);
    const doc = await publishedDocument(first, [1]);
    await body({ dataDir, first, doc, restart: async () => (second = await startService({ dataDir, port, env })) });
  } finally {
    if (first && first.process.exitCode === null && first.process.signalCode === null) first.process.kill('SIGKILL');
    await second?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
