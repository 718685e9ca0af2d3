/**
 * Independent verifier of `svc-receipt-v1` and `svc-receipt/2` (batched) receipts. Given only the receipt and read access to any
 * ledger endpoint of the receipt's network, it re-derives every hash, checks the signer's signature,
 * and checks that the ledger holds exactly this evidence. The checks and the verdict rules are
 * specified in docs/protocol.md ("Verifier", "Verifying svc-receipt/2"). A batched receipt's signer signature is
 * checked off the ledger; its leaf's inclusion proof must lead to the root its anchoring transaction records.
 */
import type { Ledger, LedgerTransaction } from '@svc/ledger';
import { acceptanceIdOf, parseAcceptanceMessage, type AcceptanceMessageFields } from './acceptance-message';
import { acceptanceSignatureEntry, acceptRecord } from './acceptance-layout';
import { asSignature, base58ToBytes, isBase58Address } from './base58';
import { canonicalContent, contentHash, versionFingerprint } from './content';
import type { VerifierMemo } from './verifier-memo';
import type { DocumentRecord, OrganizationRecord, VersionRecord } from './memo';
import { batchFeeShare, batchLeafHash } from './batch';
import { RECEIPT_FORMAT_V2 } from './constants';
import { parseJsonText } from './json-text';
import { merkleRootFromProof } from './merkle';
import { receiptProblems, type AcceptanceReceipt, type AcceptanceReceiptV1, type AcceptanceReceiptV2 } from './receipt';
import { describeSignatureRefusal, ed25519SignatureProblem } from './signatures';
import { parseEvidenceTransaction, type EvidenceTransaction } from './transactions';
import { checkRegistrations, creationOf, LedgerUnavailable, mismatches } from './verifier-registrations';
import { isIsoUtc, isoToUnixSeconds } from './validation';
import { CLOCK_TOLERANCE_SECONDS, landingAgainstWindow } from './validity-window';

/** The ledger reads the verifier needs; any `Ledger` adapter satisfies it. */
export type LedgerReader = Pick<Ledger, 'getTransaction' | 'getSignaturesForAddress' | 'getGenesisHash'>;

export type Verdict = 'VALID' | 'VALID_WITH_WARNINGS' | 'INVALID' | 'INCONCLUSIVE';
export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** The outcome of one check. `critical` checks decide validity; the others only warn. */
export interface VerificationCheck {
  id: string;
  label: string;
  status: CheckStatus;
  detail: string;
  critical: boolean;
}

export interface VerificationReport {
  verdict: Verdict;
  summary: string;
  /** Every check of `VERIFIER_CHECKS`, in that order. */
  checks: VerificationCheck[];
}

export interface VerifyOptions {
  /** The verifier's notion of now (default: the system clock); used to flag receipts dated in the future. */
  now?: Date;
  /** Pages of `getSignaturesForAddress` (up to 1000 signatures each) read per address history before giving up (default 10). */
  maxHistoryPages?: number;
  /**
   * Reads and hashes that cannot change, kept across verifications against this one ledger (see VerifierMemo);
   * default none: every read goes to the ledger.
   */
  memo?: VerifierMemo;
}

export { CLOCK_TOLERANCE_SECONDS } from './validity-window';

/** The checks the verifier runs, in report order. */
export const VERIFIER_CHECKS = [
  { id: 'receipt.format', label: 'Receipt is a well-formed svc-receipt-v1', critical: true },
  { id: 'receipt.issued-at', label: 'Receipt is not dated in the future', critical: false },
  { id: 'document.content-hash', label: 'Document text hashes to the version content hash', critical: true },
  { id: 'version.fingerprint', label: 'Version fingerprint recomputes', critical: true },
  { id: 'message.format', label: 'Signed message is a byte-exact svc/1 acceptance message', critical: true },
  { id: 'message.fields', label: 'Signed message names this signer, network, organization, document and version', critical: true },
  { id: 'acceptance.id', label: 'Acceptance ID is the hash of the signed message', critical: true },
  { id: 'acceptance.signature', label: "Signer's Ed25519 signature over the message", critical: true },
  { id: 'ledger.network', label: "Ledger is the receipt's network (genesis hash)", critical: true },
  { id: 'transaction.found', label: 'Acceptance transaction is on the ledger', critical: true },
  { id: 'transaction.succeeded', label: 'Acceptance transaction succeeded', critical: true },
  {
    id: 'transaction.signature-instruction',
    label: 'Instruction 0 is the Ed25519 precompile over exactly this key, signature and message',
    critical: true,
  },
  { id: 'transaction.memo', label: 'Memo records this acceptance ID and version', critical: true },
  { id: 'transaction.slot', label: 'Slot and block time match the receipt', critical: true },
  { id: 'transaction.fee-payer', label: 'Fee payer and fee match the receipt', critical: false },
  { id: 'message.validity-window', label: "Transaction landed within the message's validity window", critical: true },
  { id: 'version.publication', label: 'Version was published on the ledger with this content, fingerprint and number', critical: true },
  { id: 'document.registration', label: 'Document was created by the organization with this slug and title', critical: true },
  { id: 'organization.registration', label: 'Organization was created with this name', critical: true },
  { id: 'transaction.commitment', label: 'Acceptance transaction is finalized', critical: false },
] as const;

/** The checks of a batched receipt (`svc-receipt/2`), in report order: the leaf's inclusion proof and the anchor
 * record replace the precompile instruction and the `accept` memo; the fee is the acceptance's share. */
export const VERIFIER_CHECKS_V2 = [
  { id: 'receipt.format', label: 'Receipt is a well-formed svc-receipt/2', critical: true },
  ...VERIFIER_CHECKS.slice(1, 8), // receipt.issued-at … acceptance.signature
  { id: 'batch.inclusion', label: "The acceptance's leaf is in the batch: its inclusion proof leads to the batch root", critical: true },
  VERIFIER_CHECKS[8], // ledger.network
  { id: 'transaction.found', label: 'Anchoring transaction is on the ledger', critical: true },
  { id: 'transaction.succeeded', label: 'Anchoring transaction succeeded', critical: true },
  { id: 'transaction.anchor', label: 'Memo records this batch root, size, lane and sequence, signed by the fee payer', critical: true },
  VERIFIER_CHECKS[13], // transaction.slot
  { id: 'transaction.fee-payer', label: "Fee payer and the acceptance's fee share match the receipt", critical: false },
  { id: 'message.validity-window', label: "Batch was anchored within the message's validity window", critical: true },
  ...VERIFIER_CHECKS.slice(16, 19), // version.publication, document.registration, organization.registration
  { id: 'transaction.commitment', label: 'Anchoring transaction is finalized', critical: false },
] as const;

type CheckId = (typeof VERIFIER_CHECKS)[number]['id'] | (typeof VERIFIER_CHECKS_V2)[number]['id'];
type CheckList = readonly { id: CheckId; label: string; critical: boolean }[];

/** The check list a receipt is reported with: that of its declared format (v1 for anything else). */
function checksFor(input: unknown): CheckList {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = parseJsonText(input);
    } catch {
      return VERIFIER_CHECKS;
    }
  }
  return typeof value === 'object' && value !== null && (value as { format?: unknown }).format === RECEIPT_FORMAT_V2 ? VERIFIER_CHECKS_V2 : VERIFIER_CHECKS;
}
type Outcome = { status: CheckStatus; detail: string };

const utf8 = new TextEncoder();

/** Why a ledger-dependent check could not run. */
type Blocked = { kind: 'unreachable' | 'other-network' | 'no-transaction' | 'unsupported'; detail: string };

/** The proof receipt of spec §2.6: a format of the contract that this verifier does not check. */
const PROOF_RECEIPT_FORMAT = 'svc-proof-v1';

/**
 * Verifies a receipt against the ledger. Never throws: bad input yields an `INVALID` report and a
 * failing ledger an `INCONCLUSIVE` one.
 *
 * Verdict: a proof receipt (`svc-proof-v1`, spec §2.6), which this verifier does not check → `INCONCLUSIVE`; any
 * critical check failed → `INVALID` (except a network mismatch alone, see below); else a ledger read failed or the
 * ledger is another network (genesis hash differs) → `INCONCLUSIVE`;
 * else any warning → `VALID_WITH_WARNINGS`; else `VALID`. A transaction the ledger does not know,
 * while the ledger answers and is the right network, is a critical failure (`INVALID`).
 *
 * @param receipt the receipt, as parsed JSON or JSON text
 * @param ledger read access to a ledger (embedded or JSON-RPC)
 */
export async function verifyReceipt(receipt: unknown, ledger: LedgerReader, options: VerifyOptions = {}): Promise<VerificationReport> {
  const outcomes = new Map<CheckId, Outcome>();
  const set = (id: CheckId, status: CheckStatus, detail: string) => outcomes.set(id, { status, detail });
  let blocked: Blocked | null = null;
  try {
    await runChecks(receipt, ledger, options, set, (b) => {
      blocked ??= b;
    });
  } catch (error) {
    // Unexpected: a bug or a ledger returning malformed data. Report rather than throw.
    blocked ??= { kind: 'unreachable', detail: `verification stopped: ${(error as Error).message}` };
  }
  return report(checksFor(receipt), outcomes, blocked);
}

async function runChecks(
  input: unknown,
  ledger: LedgerReader,
  options: VerifyOptions,
  set: (id: CheckId, status: CheckStatus, detail: string) => void,
  block: (b: Blocked) => void,
): Promise<void> {
  // ---- Offline checks ----
  let value = input;
  if (typeof input === 'string') {
    try {
      value = parseJsonText(input);
    } catch (error) {
      set('receipt.format', 'fail', `receipt ${(error as Error).message}`);
      return;
    }
  }
  if (typeof value === 'object' && value !== null && (value as { format?: unknown }).format === PROOF_RECEIPT_FORMAT) {
    const detail = `${PROOF_RECEIPT_FORMAT} is a proof receipt, which this verifier does not check (it checks acceptance receipts: svc-receipt-v1 and svc-receipt/2)`;
    set('receipt.format', 'warn', detail);
    block({ kind: 'unsupported', detail });
    return;
  }
  const problems = receiptProblems(value);
  if (problems.length > 0) {
    set('receipt.format', 'fail', problems.slice(0, 10).join('; '));
    return;
  }
  const r = value as AcceptanceReceipt;
  set('receipt.format', 'pass', `${r.format}, all fields well-formed`);

  const now = options.now ?? new Date();
  if (isIsoUtc(r.issuedAt) && isoToUnixSeconds(r.issuedAt) > now.getTime() / 1000 + CLOCK_TOLERANCE_SECONDS) {
    set('receipt.issued-at', 'warn', `receipt says it was issued at ${r.issuedAt}, after now (${now.toISOString()})`);
  } else {
    set('receipt.issued-at', 'pass', `issued at ${r.issuedAt}`);
  }

  let recomputedHash: string | null = null;
  try {
    recomputedHash = options.memo ? options.memo.contentHashOf(r.documentText) : contentHash(canonicalContent(r.documentText));
  } catch (error) {
    set('document.content-hash', 'fail', `document text cannot be canonicalized: ${(error as Error).message}`);
  }
  if (recomputedHash !== null) {
    if (recomputedHash === r.version.contentHash) set('document.content-hash', 'pass', `SHA-256 of canonical text = ${recomputedHash}`);
    else set('document.content-hash', 'fail', `document text hashes to ${recomputedHash}, the receipt says ${r.version.contentHash}`);
  }

  try {
    const fingerprint = versionFingerprint({
      organization: r.organization.address,
      document: r.document.address,
      number: r.version.number,
      label: r.version.label,
      title: r.version.title,
      contentHash: r.version.contentHash,
      effectiveAt: r.version.effectiveAt,
    });
    if (fingerprint === r.version.fingerprint) set('version.fingerprint', 'pass', `fingerprint = ${fingerprint}`);
    else set('version.fingerprint', 'fail', `recomputed fingerprint ${fingerprint} differs from the receipt's ${r.version.fingerprint}`);
  } catch (error) {
    set('version.fingerprint', 'fail', (error as Error).message);
  }

  let message: AcceptanceMessageFields | null = null;
  try {
    message = parseAcceptanceMessage(r.acceptance.message);
    set('message.format', 'pass', `${message.protocol} acceptance message, ${Buffer.byteLength(r.acceptance.message, 'utf8')} bytes`);
  } catch (error) {
    set('message.format', 'fail', (error as Error).message);
  }
  if (message) {
    const differences = mismatches(
      [
        ['signer', message.signer, r.acceptance.signer],
        ['chain', message.chainId, r.network.chainId],
        ['domain', message.requestDomain, r.acceptance.requestDomain],
        ['organization', message.organization, r.organization.address],
        ['document', message.document, r.document.address],
        ['version', message.versionAddress, r.version.address],
        ['version number', message.versionNumber, r.version.number],
        ['content-hash', message.contentHash, r.version.contentHash],
        ['fingerprint', message.fingerprint, r.version.fingerprint],
      ],
      'message',
    );
    if (differences.length === 0) set('message.fields', 'pass', 'every field of the message matches the receipt');
    else set('message.fields', 'fail', differences.join('; '));
  }

  const acceptanceId = acceptanceIdOf(r.acceptance.message);
  if (acceptanceId === r.acceptanceId) set('acceptance.id', 'pass', `acceptance ID = ${acceptanceId}`);
  else set('acceptance.id', 'fail', `the message hashes to ${acceptanceId}, the receipt says ${r.acceptanceId}`);

  const messageBytes = utf8.encode(r.acceptance.message);
  const signature = base58ToBytes(r.acceptance.signature);
  // Strict verification, as the ledger's precompile does (docs/protocol.md §13).
  const verify = () => ed25519SignatureProblem(r.acceptance.signer, messageBytes, signature);
  const refusal = options.memo ? options.memo.signatureVerdict(r.acceptance.signer, r.acceptance.message, r.acceptance.signature, verify) : verify();
  if (refusal === null) set('acceptance.signature', 'pass', `valid Ed25519 signature by ${r.acceptance.signer}`);
  else if (refusal === 'mismatch') set('acceptance.signature', 'fail', `the signature does not verify for ${r.acceptance.signer} over the message`);
  else set('acceptance.signature', 'fail', `strict Ed25519 verification refuses it: ${describeSignatureRefusal(refusal)}`);
  if (r.format === RECEIPT_FORMAT_V2) checkInclusion(r, set);

  // ---- Ledger checks ----
  const read = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw new LedgerUnavailable(`ledger unreachable (${what}): ${(error as Error).message}`);
    }
  };
  // The reads are independent: start them all now, then use their results in the order of the checks, so
  // that the report (including which failed read it names) is the one a sequential run would give.
  const maxPages = options.maxHistoryPages ?? 10;
  const memo = options.memo;
  const genesisHash = () => ledger.getGenesisHash();
  const transaction = () => ledger.getTransaction(asSignature(r.transaction.signature));
  const decode: Decode = memo ? (t) => memo.decodedTransaction(t, parseEvidenceTransaction) : (t) => parseEvidenceTransaction(t.wire);
  const started = {
    genesis: quiet(read('getGenesisHash', memo ? () => memo.genesisHash(genesisHash) : genesisHash)),
    transaction: quiet(read('getTransaction', memo ? () => memo.transaction(r.transaction.signature, transaction) : transaction)),
    version: quiet(creationOf<VersionRecord>(r.version.address, 'ver', ledger, read, maxPages, memo)),
    document: quiet(creationOf<DocumentRecord>(r.document.address, 'doc', ledger, read, maxPages, memo)),
    organization: quiet(creationOf<OrganizationRecord>(r.organization.address, 'org', ledger, read, maxPages, memo)),
  };
  try {
    const genesis: unknown = await started.genesis;
    // A genesis hash is base58 of 32 bytes; anything else is not what the method returns: an unreadable ledger, not
    // another network.
    if (!isBase58Address(genesis)) throw new LedgerUnavailable(`the ledger's answer to getGenesisHash is not a genesis hash: ${JSON.stringify(genesis)?.slice(0, 100)}`);
    const ledgerChainId = `solana:${genesis.slice(0, 32)}`;
    if (ledgerChainId !== r.network.chainId) {
      set('ledger.network', 'fail', `the ledger is ${ledgerChainId}, the receipt is for ${r.network.chainId}`);
      block({ kind: 'other-network', detail: 'the ledger queried is another network' });
      return;
    }
    set('ledger.network', 'pass', `ledger genesis hash matches ${r.network.chainId}`);

    const tx = await started.transaction;
    const malformed = tx ? unreadableTransaction(tx) : null;
    if (malformed !== null) throw new LedgerUnavailable(`the ledger's answer to getTransaction is malformed: ${malformed}`);
    if (!tx) {
      set('transaction.found', 'fail', `the ledger has no transaction ${r.transaction.signature}`);
      block({ kind: 'no-transaction', detail: 'no acceptance transaction to check' });
    } else if (r.format === RECEIPT_FORMAT_V2) {
      checkAnchorTransaction(r, tx, decode, message, set);
    } else {
      checkAcceptanceTransaction(r, tx, decode, messageBytes, signature, message, set);
    }

    await checkRegistrations(r, started, set);
  } catch (error) {
    if (error instanceof LedgerUnavailable) block({ kind: 'unreachable', detail: error.message });
    else throw error;
  }
}

/** Whether `value` is a slot or an amount of lamports: a non-negative integer (a bigint, or a safe integer). */
function isLedgerCount(value: unknown): boolean {
  return typeof value === 'bigint' ? value >= 0n : Number.isSafeInteger(value) && (value as number) >= 0;
}

/**
 * Why a transaction a {@link LedgerReader} returned cannot be read (its slot, block time or fee is not an integer, its
 * bytes not bytes); null when it can. Any reader is checked here, ours or not (`RpcLedger` also refuses such an
 * answer as it reads it off the wire). Such an answer is a failed read (docs/protocol.md §9, verdict rule 2), not evidence
 * that the receipt is wrong: comparing `NaN` with the receipt's slot would call the receipt INVALID.
 */
function unreadableTransaction(tx: LedgerTransaction): string | null {
  if (!isLedgerCount(tx.slot)) return `slot ${safeJson(tx.slot)} is not a non-negative integer`;
  if (tx.blockTime !== null && !Number.isSafeInteger(tx.blockTime)) return `blockTime ${safeJson(tx.blockTime)} is neither null nor an integer`;
  if (!isLedgerCount(tx.fee)) return `fee ${safeJson(tx.fee)} is not a non-negative integer`;
  if (!(tx.wire instanceof Uint8Array)) return 'the transaction bytes are missing';
  return null;
}

/** `promise`, marked as handled: a result not awaited (the checks stopped earlier) is not an unhandled rejection. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Decodes a ledger transaction's bytes. @throws Error when they are not a transaction. */
type Decode = (tx: LedgerTransaction) => EvidenceTransaction;

function checkAcceptanceTransaction(
  r: AcceptanceReceiptV1,
  tx: LedgerTransaction,
  decode: Decode,
  messageBytes: Uint8Array,
  signature: Uint8Array,
  message: AcceptanceMessageFields | null,
  set: (id: CheckId, status: CheckStatus, detail: string) => void,
): void {
  const parsed = foundTransaction(r, tx, decode, set);
  if (!parsed) return;

  const entry = acceptanceSignatureEntry(parsed);
  if (typeof entry === 'string') {
    set('transaction.signature-instruction', 'fail', entry);
  } else {
    const e = entry;
    const problems: string[] = [];
    if (e.publicKey !== r.acceptance.signer) problems.push(`public key is ${e.publicKey}`);
    if (!bytesEqual(e.signature, signature)) problems.push('signature differs');
    if (!bytesEqual(e.message, messageBytes)) problems.push('message bytes differ');
    if (problems.length === 0)
      set('transaction.signature-instruction', 'pass', 'the runtime verified exactly this signature over exactly this message');
    else set('transaction.signature-instruction', 'fail', problems.join('; '));
  }

  // Exactly one accept memo (a malformed one counts), well-formed and naming no account (§7.3).
  const rec = acceptRecord(parsed);
  if (typeof rec === 'string') {
    set('transaction.memo', 'fail', rec);
  } else {
    const problems: string[] = [];
    if (rec.acceptanceId !== r.acceptanceId) problems.push(`memo acceptance ID is ${rec.acceptanceId}`);
    if (rec.versionAddress !== r.version.address) problems.push(`memo version is ${rec.versionAddress}`);
    if (problems.length === 0) set('transaction.memo', 'pass', `memo: ${rec.text}`);
    else set('transaction.memo', 'fail', problems.join('; '));
  }

  checkLanding(r, tx, parsed, Number(tx.fee), message, set);
}

/** Decodes the ledger's transaction and records `transaction.found` and `transaction.succeeded`; null when not found. */
function foundTransaction(r: AcceptanceReceipt, tx: LedgerTransaction, decode: Decode, set: (id: CheckId, status: CheckStatus, detail: string) => void): EvidenceTransaction | null {
  let parsed: EvidenceTransaction;
  try {
    parsed = decode(tx);
  } catch (error) {
    set('transaction.found', 'fail', `the ledger's transaction cannot be decoded: ${(error as Error).message}`);
    return null;
  }
  if (parsed.signature !== r.transaction.signature) {
    set('transaction.found', 'fail', `the ledger returned transaction ${parsed.signature} for ${r.transaction.signature}`);
    return null;
  }
  set('transaction.found', 'pass', `transaction ${r.transaction.signature}`);
  if (tx.err === null || tx.err === undefined) set('transaction.succeeded', 'pass', 'executed without error');
  else set('transaction.succeeded', 'fail', `the transaction failed: ${safeJson(tx.err)}`);
  return parsed;
}

/** `batch.inclusion`: the leaf recomputed from the receipt's evidence, and its audit path up to the batch root. */
function checkInclusion(r: AcceptanceReceiptV2, set: (id: CheckId, status: CheckStatus, detail: string) => void): void {
  const leafHash = batchLeafHash({
    acceptanceId: r.acceptanceId,
    message: r.acceptance.message,
    signature: r.acceptance.signature,
    signer: r.acceptance.signer,
    versionAddress: r.version.address,
  });
  const { leafIndex, size, proof, root } = r.batch;
  if (leafHash !== r.batch.leafHash) return void set('batch.inclusion', 'fail', `the acceptance's evidence hashes to leaf ${leafHash}, the receipt says ${r.batch.leafHash}`);
  const reached = merkleRootFromProof(leafHash, leafIndex, size, proof);
  if (reached === null) set('batch.inclusion', 'fail', `the proof has ${proof.length} hashes, which cannot place leaf ${leafIndex} in a tree of ${size}`);
  else if (reached !== root) set('batch.inclusion', 'fail', `the proof leads to ${reached}, the batch root is ${root}`);
  else set('batch.inclusion', 'pass', `leaf ${leafIndex} of ${size}, ${proof.length} proof hashes up to root ${root}`);
}

/** The ledger checks of a batched receipt: the anchoring transaction records exactly this batch. */
function checkAnchorTransaction(
  r: AcceptanceReceiptV2,
  tx: LedgerTransaction,
  decode: Decode,
  message: AcceptanceMessageFields | null,
  set: (id: CheckId, status: CheckStatus, detail: string) => void,
): void {
  const parsed = foundTransaction(r, tx, decode, set);
  if (!parsed) return;
  const anchors = parsed.memos.filter((m) => m.record?.kind === 'batch');
  if (anchors.length !== 1) {
    set('transaction.anchor', 'fail', `expected exactly one svc/1 batch memo, found ${anchors.length}`);
  } else {
    const memo = anchors[0]!;
    const rec = memo.record as { lane: number; sequence: number; size: number; root: string };
    const problems = mismatches(
      [
        ['root', rec.root, r.batch.root],
        ['size', rec.size, r.batch.size],
        ['lane', rec.lane, r.batch.lane],
        ['sequence', rec.sequence, r.batch.sequence],
      ],
      'memo',
    );
    if (memo.signerAccounts[0] !== parsed.feePayer) problems.push('the memo is not signed by the fee payer');
    if (problems.length === 0) set('transaction.anchor', 'pass', `memo: ${memo.text}`);
    else set('transaction.anchor', 'fail', problems.join('; '));
  }
  checkLanding(r, tx, parsed, batchFeeShare(Number(tx.fee), r.batch.size, r.batch.leafIndex), message, set);
}

/**
 * The checks both formats share once the transaction is found: slot and block time, fee payer and fee (the whole
 * fee, or a batched acceptance's share), the message's validity window at the block time, commitment.
 */
function checkLanding(
  r: AcceptanceReceipt,
  tx: LedgerTransaction,
  parsed: EvidenceTransaction,
  expectedFee: number,
  message: AcceptanceMessageFields | null,
  set: (id: CheckId, status: CheckStatus, detail: string) => void,
): void {
  const slot = Number(tx.slot);
  if (slot !== r.transaction.slot) {
    set('transaction.slot', 'fail', `the ledger says slot ${slot}, the receipt ${r.transaction.slot}`);
  } else if (tx.blockTime !== null && r.transaction.blockTime !== null && tx.blockTime !== r.transaction.blockTime) {
    set('transaction.slot', 'fail', `the ledger says block time ${tx.blockTime}, the receipt ${r.transaction.blockTime}`);
  } else {
    set('transaction.slot', 'pass', `slot ${slot}, block time ${tx.blockTime ?? 'unknown'}`);
  }

  const feeProblems: string[] = [];
  if (parsed.feePayer !== r.fees.payer) feeProblems.push(`fee payer is ${parsed.feePayer}, the receipt says ${r.fees.payer}`);
  if (expectedFee !== r.fees.lamports) feeProblems.push(`fee is ${expectedFee} lamports, the receipt says ${r.fees.lamports}`);
  if (feeProblems.length === 0) set('transaction.fee-payer', 'pass', `${parsed.feePayer} paid ${tx.fee} lamports${expectedFee === Number(tx.fee) ? '' : `, ${expectedFee} for this acceptance`}`);
  else set('transaction.fee-payer', 'warn', feeProblems.join('; '));

  if (message) {
    const landing = landingAgainstWindow(message, tx.blockTime);
    if (tx.blockTime === null || landing === 'unknown') {
      set('message.validity-window', 'warn', 'the ledger does not know the block time; the window cannot be checked');
    } else if (landing !== 'within') {
      set(
        'message.validity-window',
        'fail',
        `block time ${new Date(tx.blockTime * 1000).toISOString()} is outside ${message.issuedAt} .. ${message.expiresAt}`,
      );
    } else {
      set(
        'message.validity-window',
        'pass',
        `block time ${new Date(tx.blockTime * 1000).toISOString()} within ${message.issuedAt} .. ${message.expiresAt}`,
      );
    }
  }

  if (tx.confirmationStatus === 'finalized') set('transaction.commitment', 'pass', 'finalized');
  else set('transaction.commitment', 'warn', `not yet finalized (${tx.confirmationStatus})`);
}

function report(list: CheckList, outcomes: Map<CheckId, Outcome>, blocked: Blocked | null): VerificationReport {
  const checks: VerificationCheck[] = list.map((c) => {
    const o = outcomes.get(c.id) ?? { status: 'skip' as const, detail: skipReason(c.id, outcomes, blocked) };
    return { id: c.id, label: c.label, status: o.status, detail: o.detail, critical: c.critical };
  });
  const criticalFailures = checks.filter((c) => c.critical && c.status === 'fail' && c.id !== 'ledger.network');
  const warnings = checks.filter((c) => c.status === 'warn' || (!c.critical && c.status === 'fail'));
  const b = blocked as Blocked | null;
  if (b?.kind === 'unsupported') return { verdict: 'INCONCLUSIVE', summary: `Inconclusive: ${b.detail}.`, checks };
  if (criticalFailures.length > 0) {
    const n = criticalFailures.length;
    const first = criticalFailures[0]!;
    const more =
      n > 1
        ? ` (and ${n - 1} more: ${criticalFailures
            .slice(1)
            .map((c) => c.id)
            .join(', ')})`
        : '';
    return { verdict: 'INVALID', summary: `Invalid: ${n} critical check${n > 1 ? 's' : ''} failed. ${first.label}: ${first.detail}${more}.`, checks };
  }
  if (b && (b.kind === 'unreachable' || b.kind === 'other-network')) {
    const why = b.kind === 'other-network' ? "the ledger queried is not the receipt's network" : b.detail;
    return { verdict: 'INCONCLUSIVE', summary: `Inconclusive: the offline checks passed but ${why}.`, checks };
  }
  if (warnings.length > 0) {
    return { verdict: 'VALID_WITH_WARNINGS', summary: `Valid with warnings: ${warnings.map((c) => c.detail).join('; ')}.`, checks };
  }
  return { verdict: 'VALID', summary: 'Valid: the signer signed exactly this message for this version, and the ledger recorded it.', checks };
}

function skipReason(id: CheckId, outcomes: Map<CheckId, Outcome>, blocked: Blocked | null): string {
  if (outcomes.get('receipt.format')?.status === 'fail') return 'not checked: the receipt is malformed';
  if (id === 'message.fields' || id === 'message.validity-window') {
    if (outcomes.get('message.format')?.status === 'fail') return 'not checked: the message does not parse';
  }
  if (blocked) return `not checked: ${blocked.detail}`;
  return 'not checked';
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  } catch {
    return String(value);
  }
}
