import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { buildPublicationTransaction, parseEvidenceTransaction, type EvidenceTransaction, type MemoKind, type MemoRecord } from '@svc/evidence';
import { toAddress, toSignature, type Ledger, type Signature } from '@svc/ledger';
import { ApiClient, ApiError } from '../../apps/cli/src/api-client';
import { signText, type PublishedVersion } from '../../apps/cli/src/operations';
import { startService, type RunningService } from '../../apps/cli/src/service-process';
import { publishedDocument, termsOfService, type PublishedDocument } from './fixtures';
import { testCertificates } from './test-certificates';
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
  feeSponsor: 'svc' | 'organization';
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
  return (await recordsOnLedger(ledger, address, 'accept')).map(({ transactionSignature, acceptanceId, versionAddress, feePayer }) => ({ transactionSignature, acceptanceId, versionAddress, feePayer }));
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
  return (await recordsOnLedger(ledger, address, 'batch')).map(({ transactionSignature, lane, sequence, size, root }) => ({ transactionSignature, lane, sequence, size, root }));
}

/** An audit anchor memo (`svc/1 audit …`) carried by a successful transaction on the ledger. */
export interface AuditAnchorOnLedger {
  transactionSignature: string;
  organization: string;
  sequence: number;
  head: string;
}

/** Every audit anchor memo in the successful transactions referencing `address` (the relayer). */
export async function auditAnchorsOnLedger(ledger: Ledger, address: string): Promise<AuditAnchorOnLedger[]> {
  return (await recordsOnLedger(ledger, address, 'audit')).map(({ transactionSignature, organization, sequence, head }) => ({ transactionSignature, organization, sequence, head }));
}

/** A memo record of one kind, with the successful transaction carrying it. */
export type RecordOnLedger<K extends MemoKind> = Extract<MemoRecord, { kind: K }> & { transactionSignature: string; feePayer: string };

/** Every `svc/1 <kind>` memo record in the successful transactions referencing `address`, decoded with the evidence library. */
export async function recordsOnLedger<K extends MemoKind>(ledger: Ledger, address: string, kind: K): Promise<RecordOnLedger<K>[]> {
  const found: RecordOnLedger<K>[] = [];
  for (const { signature, parsed } of await successfulTransactions(ledger, address)) {
    for (const memo of parsed.memos) {
      if (memo.record?.kind !== kind) continue;
      found.push({ ...(memo.record as Extract<MemoRecord, { kind: K }>), transactionSignature: signature, feePayer: parsed.feePayer });
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
 * Publishes ToS version `n` (or `source` under its label) as the next version of the document through the
 * dashboard — draft, prepare, the publication transaction signed by the owner, confirm (the steps of the CLI's
 * publishVersion) — and returns the draft's id with the recorded version (the document view does not list drafts).
 */
export async function publishThroughDraft(doc: PublishedDocument, n: 1 | 2 | 3 | 4, source = termsOfService(n)): Promise<{ draftId: string; version: PublishedVersion }> {
  const { draft } = await doc.dashboard.request<{ draft: { id: string } }>('POST', `/v1/documents/${doc.document.id}/drafts`, {
    title: 'Terms of Service',
    versionLabel: `v${n}`,
    source,
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

/** The data of every event of `type` in a service's event log (`<dataDir>/events.sqlite`, read-only), in log order. */
export function recordedEvents<T>(dataDir: string, type: string): T[] {
  const db = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare<[string], { data: string }>('SELECT data FROM events WHERE type = ? ORDER BY position')
      .all(type)
      .map((row) => JSON.parse(row.data) as T);
  } finally {
    db.close();
  }
}

/** A webhook delivery as the receiver got it: the event id header, the signature header and the raw body. */
export interface ReceivedWebhook {
  eventId: string;
  signature: string;
  body: string;
}

/** An HTTPS webhook receiver on loopback answering 200 to everything, trusted by the service through a test CA. */
export interface WebhookReceiver {
  /** `https://127.0.0.1:<port>`. */
  base: string;
  /** Service settings that let it deliver here: loopback allowed, the test CA trusted. */
  env: { WEBHOOK_ALLOW_LOOPBACK: string; WEBHOOK_TEST_CA_FILE: string };
  received: ReceivedWebhook[];
  close(): Promise<void>;
}

/** Starts a {@link WebhookReceiver} on a free loopback port, with a fresh test CA; it answers 200 at once, or `answerAfterMs` after each request arrived. */
export async function webhookReceiver(options: { answerAfterMs?: number } = {}): Promise<WebhookReceiver> {
  const certs = await testCertificates();
  const received: ReceivedWebhook[] = [];
  const server = createServer({ key: certs.key, cert: certs.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ eventId: String(req.headers['svc-event-id']), signature: String(req.headers['svc-signature']), body: Buffer.concat(chunks).toString('utf8') });
      const answer = () => {
        if (!res.destroyed) res.writeHead(200).end('ok');
      };
      if (options.answerAfterMs) setTimeout(answer, options.answerAfterMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    env: { WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_TEST_CA_FILE: certs.caFile },
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(certs.dir, { recursive: true, force: true });
    },
  };
}

/**
 * A service armed to die at a fault point, seen from its clients. `call` runs a request; when it fails without an
 * HTTP answer, the armed process is expected to have died with it in flight: `call` waits for it to exit, requires
 * a SIGKILL, starts the service again unarmed on the same data and port (once), and runs the request again.
 */
export interface ArmedService {
  baseUrl: string;
  rpcUrl: string;
  armed: RunningService;
  /** The unarmed service started after the armed one died; null while it lives. */
  restarted(): RunningService | null;
  call<T>(request: () => Promise<T>): Promise<T>;
  /** Kills the armed process if it still runs, stops the restarted one. */
  stop(): Promise<void>;
}

export async function armedService(options: { dataDir: string; port: number; env: Record<string, string>; point: string; pauseBeforeRestartMs?: number }): Promise<ArmedService> {
  const { dataDir, port, env, point } = options;
  const armed = await startService({ dataDir, port, env: { ...env, NODE_ENV: 'test', SVC_TEST_KILL_AT: point } }).catch((err: Error) => {
    throw new Error(`the service armed at ${point} did not start: ${err.message}`);
  });
  let restarting: Promise<RunningService> | null = null;
  let restarted: RunningService | null = null;
  const restart = async (): Promise<RunningService> => {
    let timer: NodeJS.Timeout | undefined;
    const died = await Promise.race([exited(armed.process).then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 10_000)))]);
    clearTimeout(timer);
    if (!died) throw new Error(`a request to the service failed while it kept running (armed at ${point})`);
    if (armed.process.signalCode !== 'SIGKILL') throw new Error(`the armed service exited with ${armed.process.exitCode ?? armed.process.signalCode}, not SIGKILL`);
    if (options.pauseBeforeRestartMs) await new Promise((r) => setTimeout(r, options.pauseBeforeRestartMs));
    return (restarted = await startService({ dataDir, port, env }));
  };
  return {
    baseUrl: armed.baseUrl,
    rpcUrl: armed.rpcUrl,
    armed,
    restarted: () => restarted,
    async call<T>(request: () => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await request();
        } catch (err) {
          if (err instanceof ApiError || attempt >= 3) throw err;
          const service = await (restarting ??= restart());
          if (service.process.exitCode !== null || service.process.signalCode !== null) throw err;
        }
      }
    },
    async stop() {
      if (armed.process.exitCode === null && armed.process.signalCode === null) {
        armed.process.kill('SIGKILL');
        await exited(armed.process);
      }
      const second = restarting ? await restarting.catch(() => null) : null;
      await second?.stop();
    },
  };
}
