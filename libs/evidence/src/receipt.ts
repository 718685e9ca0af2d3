/**
 * Acceptance receipts: one self-contained JSON document holding everything needed to verify an acceptance against
 * the ledger without the service. `svc-receipt-v1` for direct mode; `svc-receipt/2` for batched evidence (the same
 * fields, the anchoring transaction, and the acceptance's leaf with its inclusion proof).
 * Serialized as RFC 8785 canonical JSON (JCS). Field rules: docs/protocol.md ("Receipt", "Receipt svc-receipt/2").
 */
import canonicalize from 'canonicalize';
import { acceptanceIdOf } from './acceptance-message';
import { batchRefProblems, type BatchRef } from './batch';
import { MEMO_PROGRAM_ADDRESS, RECEIPT_FORMAT_V1, RECEIPT_FORMAT_V2 } from './constants';
import { ReceiptFormatError } from './errors';
import { parseJsonText } from './json-text';
import {
  CHAIN_ID,
  HEX64,
  SLUG,
  hasExactKeys,
  isBase58Address,
  isBase58Signature,
  isEffectiveAt,
  isIsoUtc,
  isNonNegativeInteger,
  isPlainObject,
  isRequestDomain,
  isText,
  isVersionNumber,
} from './validation';

/** A direct-mode acceptance receipt. Addresses and signatures are base58; hashes lower-case hex. */
export interface AcceptanceReceiptV1 {
  format: 'svc-receipt-v1';
  /** `acceptanceIdOf(acceptance.message)`. */
  acceptanceId: string;
  network: {
    /** CAIP-2: `solana:` + first 32 characters of the genesis hash. */
    chainId: string;
    /** Human label of the network, e.g. `devnet`, 1..64 characters. */
    label: string;
    /** The program carrying the records: the Memo v2 program address. */
    programId: string;
  };
  transaction: {
    /** Base58 signature of the acceptance transaction. */
    signature: string;
    /** Slot the transaction landed in. */
    slot: number;
    /** Unix seconds of the block, or null when the ledger did not know it. */
    blockTime: number | null;
  };
  acceptance: {
    signer: string;
    signerType: 'wallet';
    /** The exact signed `svc/1` message. */
    message: string;
    /** Base58 of the 64-byte Ed25519 signature over the UTF-8 message. */
    signature: string;
    /** The site that asked for the signature (repeated from the message). */
    requestDomain: string;
  };
  organization: { address: string; name: string };
  document: { address: string; slug: string; title: string };
  version: {
    address: string;
    number: number;
    label: string;
    title: string;
    contentHash: string;
    fingerprint: string;
    /** Unix seconds, or null (effective on publication). */
    effectiveAt: number | null;
    /** Base58 signature of the transaction that published the version. */
    publicationSignature: string;
  };
  /** The full text of the version (its canonical form hashes to `version.contentHash`). */
  documentText: string;
  fees: {
    /** Fee payer of the acceptance transaction. */
    payer: string;
    /** Network fee paid, in lamports. */
    lamports: number;
    /** Who bore the fee: the service's relayer, or the organization's sponsoring shard. */
    sponsor: 'svc' | 'organization';
    /** Lamports the organization's sponsorship paid back; null when the service paid. */
    reimbursedLamports: number | null;
  };
  /** ISO 8601 UTC time the receipt was issued. */
  issuedAt: string;
}

/**
 * A batched-evidence receipt: the fields of `svc-receipt-v1`, where `transaction` is the batch's anchoring
 * transaction and `fees.lamports` the acceptance's share of its fee, plus the leaf's place in the batch.
 */
export interface AcceptanceReceiptV2 extends Omit<AcceptanceReceiptV1, 'format'> {
  format: typeof RECEIPT_FORMAT_V2;
  evidenceMode: 'MERKLE_BATCHED';
  batch: BatchRef & {
    /** 0-based position of the acceptance's leaf in the batch. */
    leafIndex: number;
    /** RFC 6962 leaf hash of the acceptance's evidence (docs/protocol.md "Batched evidence"). */
    leafHash: string;
    /** Audit path from the leaf to `root`, leaf side first (RFC 6962 §2.1.1). */
    proof: string[];
  };
}

/** Either receipt format. */
export type AcceptanceReceipt = AcceptanceReceiptV1 | AcceptanceReceiptV2;

/** What `buildReceipt` needs: everything but `format` and `acceptanceId`, which it derives. */
export type AcceptanceReceiptInput = Omit<AcceptanceReceiptV1, 'format' | 'acceptanceId'>;

/** What `buildReceiptV2` needs: everything but `format`, `evidenceMode` and `acceptanceId`, which it derives. */
export type AcceptanceReceiptV2Input = Omit<AcceptanceReceiptV2, 'format' | 'evidenceMode' | 'acceptanceId'>;

/**
 * Builds a receipt, deriving `format` and `acceptanceId` (from the message), and checks its shape.
 * It does not check signatures or the ledger: use `verifyReceipt` for that.
 * @throws ReceiptFormatError listing every field that breaks its rule.
 */
export function buildReceipt(input: AcceptanceReceiptInput): AcceptanceReceiptV1 {
  const receipt = buildReceiptFields(input);
  const problems = receiptProblems(receipt);
  if (problems.length > 0) throw new ReceiptFormatError(problems);
  return receipt;
}

function buildReceiptFields(input: AcceptanceReceiptInput): AcceptanceReceiptV1 {
  return {
    format: RECEIPT_FORMAT_V1,
    acceptanceId: typeof input?.acceptance?.message === 'string' ? acceptanceIdOf(input.acceptance.message) : '',
    network: { ...input.network },
    transaction: { ...input.transaction },
    acceptance: { ...input.acceptance },
    organization: { ...input.organization },
    document: { ...input.document },
    version: { ...input.version },
    documentText: input.documentText,
    fees: { ...input.fees },
    issuedAt: input.issuedAt,
  };
}

/**
 * Builds a batched-evidence receipt, deriving `format`, `evidenceMode` and `acceptanceId`, and checks its shape
 * (not the proof: `verifyReceipt` recomputes it).
 * @throws ReceiptFormatError listing every field that breaks its rule.
 */
export function buildReceiptV2(input: AcceptanceReceiptV2Input): AcceptanceReceiptV2 {
  const { format: _format, ...common } = buildReceiptFields(input);
  const receipt: AcceptanceReceiptV2 = {
    format: RECEIPT_FORMAT_V2,
    evidenceMode: 'MERKLE_BATCHED',
    ...common,
    batch: { ...input.batch, proof: [...(input.batch?.proof ?? [])] },
  };
  const problems = receiptProblems(receipt);
  if (problems.length > 0) throw new ReceiptFormatError(problems);
  return receipt;
}

/**
 * Serializes a receipt as RFC 8785 canonical JSON (sorted keys, no whitespace, UTF-8 text).
 * @throws ReceiptFormatError when the receipt breaks the shape rules.
 */
export function serializeReceipt(receipt: AcceptanceReceipt): string {
  const problems = receiptProblems(receipt);
  if (problems.length > 0) throw new ReceiptFormatError(problems);
  return canonicalize(receipt) as string;
}

/**
 * Parses receipt JSON text (or takes an already parsed value) and checks its shape.
 * @throws ReceiptFormatError when the text is not JSON, repeats a key in an object (RFC 8785 §3.1), or the value is
 *   not an `svc-receipt-v1` or `svc-receipt/2`.
 */
export function parseReceipt(input: unknown): AcceptanceReceipt {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = parseJsonText(input);
    } catch (error) {
      throw new ReceiptFormatError([`receipt ${(error as Error).message}`]);
    }
  }
  const problems = receiptProblems(value);
  if (problems.length > 0) throw new ReceiptFormatError(problems);
  return value as AcceptanceReceipt;
}

/**
 * Every shape problem of a candidate receipt (empty when it is a well-formed `svc-receipt-v1`, or `svc-receipt/2`
 * when its `format` says so). Objects must have exactly the specified keys. Never throws.
 */
export function receiptProblems(value: unknown): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, path: string, rule: string) => {
    if (!ok) problems.push(`${path}: ${rule}`);
  };
  const object = (v: unknown, path: string, keys: readonly string[]): Record<string, unknown> | null => {
    if (!isPlainObject(v)) {
      problems.push(`${path}: must be an object`);
      return null;
    }
    if (!hasExactKeys(v, keys)) {
      problems.push(`${path}: must have exactly the keys ${keys.join(', ')}`);
      return null;
    }
    return v;
  };
  const hex = (v: unknown) => typeof v === 'string' && HEX64.test(v);
  const addr = 'must be a base58 address';
  const sig = 'must be a base58 64-byte signature';

  const batched = isPlainObject(value) && value.format === RECEIPT_FORMAT_V2;
  const keys = ['format', 'acceptanceId', 'network', 'transaction', 'acceptance', 'organization', 'document', 'version', 'documentText', 'fees', 'issuedAt'];
  const r = object(value, 'receipt', batched ? [...keys, 'evidenceMode', 'batch'] : keys);
  if (!r) return problems;
  check(r.format === RECEIPT_FORMAT_V1 || batched, 'format', `must be "${RECEIPT_FORMAT_V1}" or "${RECEIPT_FORMAT_V2}"`);
  if (batched) {
    check(r.evidenceMode === 'MERKLE_BATCHED', 'evidenceMode', 'must be "MERKLE_BATCHED"');
    const batch = object(r.batch, 'batch', ['lane', 'sequence', 'size', 'root', 'leafIndex', 'leafHash', 'proof']);
    if (batch) {
      problems.push(...batchRefProblems(batch, 'batch'));
      check(Number.isSafeInteger(batch.leafIndex) && (batch.leafIndex as number) >= 0 && (batch.leafIndex as number) < (batch.size as number), 'batch.leafIndex', 'must be an integer from 0 to size - 1');
      check(hex(batch.leafHash), 'batch.leafHash', 'must be 64 lower-case hex characters');
      check(Array.isArray(batch.proof) && batch.proof.length <= 10 && batch.proof.every(hex), 'batch.proof', 'must be a list of at most 10 lower-case hex hashes');
    }
  }
  check(hex(r.acceptanceId), 'acceptanceId', 'must be 64 lower-case hex characters');
  const network = object(r.network, 'network', ['chainId', 'label', 'programId']);
  if (network) {
    check(typeof network.chainId === 'string' && CHAIN_ID.test(network.chainId), 'network.chainId', 'must be "solana:" followed by 32 base58 characters');
    check(isText(network.label, 1, 64), 'network.label', 'must be 1 to 64 characters');
    check(network.programId === MEMO_PROGRAM_ADDRESS, 'network.programId', `must be the Memo program ${MEMO_PROGRAM_ADDRESS}`);
  }
  const transaction = object(r.transaction, 'transaction', ['signature', 'slot', 'blockTime']);
  if (transaction) {
    check(isBase58Signature(transaction.signature), 'transaction.signature', sig);
    check(isNonNegativeInteger(transaction.slot), 'transaction.slot', 'must be a non-negative integer');
    check(transaction.blockTime === null || isNonNegativeInteger(transaction.blockTime), 'transaction.blockTime', 'must be unix seconds or null');
  }
  const acceptance = object(r.acceptance, 'acceptance', ['signer', 'signerType', 'message', 'signature', 'requestDomain']);
  if (acceptance) {
    check(isBase58Address(acceptance.signer), 'acceptance.signer', addr);
    check(acceptance.signerType === 'wallet', 'acceptance.signerType', 'must be "wallet"');
    check(typeof acceptance.message === 'string' && acceptance.message.length > 0, 'acceptance.message', 'must be a non-empty string');
    check(isBase58Signature(acceptance.signature), 'acceptance.signature', sig);
    check(isRequestDomain(acceptance.requestDomain), 'acceptance.requestDomain', 'must be a lower-case host name with optional :port');
  }
  const organization = object(r.organization, 'organization', ['address', 'name']);
  if (organization) {
    check(isBase58Address(organization.address), 'organization.address', addr);
    check(isText(organization.name, 1, 80), 'organization.name', 'must be 1 to 80 characters');
  }
  const document = object(r.document, 'document', ['address', 'slug', 'title']);
  if (document) {
    check(isBase58Address(document.address), 'document.address', addr);
    check(typeof document.slug === 'string' && SLUG.test(document.slug), 'document.slug', 'must be a slug');
    check(isText(document.title, 1, 200), 'document.title', 'must be 1 to 200 characters');
  }
  const version = object(r.version, 'version', ['address', 'number', 'label', 'title', 'contentHash', 'fingerprint', 'effectiveAt', 'publicationSignature']);
  if (version) {
    check(isBase58Address(version.address), 'version.address', addr);
    check(isVersionNumber(version.number), 'version.number', 'must be an integer from 1 to 4294967295');
    check(isText(version.label, 1, 16), 'version.label', 'must be 1 to 16 characters');
    check(isText(version.title, 1, 200), 'version.title', 'must be 1 to 200 characters');
    check(hex(version.contentHash), 'version.contentHash', 'must be 64 lower-case hex characters');
    check(hex(version.fingerprint), 'version.fingerprint', 'must be 64 lower-case hex characters');
    check(isEffectiveAt(version.effectiveAt), 'version.effectiveAt', 'must be unix seconds or null');
    check(isBase58Signature(version.publicationSignature), 'version.publicationSignature', sig);
  }
  check(typeof r.documentText === 'string', 'documentText', 'must be a string');
  const fees = object(r.fees, 'fees', ['payer', 'lamports', 'sponsor', 'reimbursedLamports']);
  if (fees) {
    check(isBase58Address(fees.payer), 'fees.payer', addr);
    check(isNonNegativeInteger(fees.lamports), 'fees.lamports', 'must be a non-negative integer');
    check(fees.sponsor === 'svc' || fees.sponsor === 'organization', 'fees.sponsor', 'must be "svc" or "organization"');
    check(fees.reimbursedLamports === null || isNonNegativeInteger(fees.reimbursedLamports), 'fees.reimbursedLamports', 'must be a non-negative integer or null');
  }
  check(isIsoUtc(r.issuedAt), 'issuedAt', 'must be an ISO 8601 UTC time');
  return problems;
}
