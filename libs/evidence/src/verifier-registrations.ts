/**
 * The registration checks of the verifier (docs/protocol.md "Receipt verification"): each of the version, the
 * document and the organization named by a receipt must have been created on the ledger by the protocol's memo,
 * co-signed by its own address, with the fields and the chain of authorities the receipt states.
 */
import type { AddressSignature, Ledger, Signature } from '@svc/ledger';
import { asAddress } from './base58';
import type { DocumentRecord, OrganizationRecord, VersionRecord } from './memo';
import type { AcceptanceReceipt } from './receipt';
import { parseEvidenceTransaction, type EvidenceTransaction, type ParsedMemo } from './transactions';
import type { VerifierMemo } from './verifier-memo';

/** A ledger read that failed (network error, RPC error): verification cannot conclude. */
export class LedgerUnavailable extends Error {}

/** The ledger reads the registration checks make. */
type HistoryReader = Pick<Ledger, 'getTransaction' | 'getSignaturesForAddress'>;

/** The checks this module sets. */
export type RegistrationCheck = 'version.publication' | 'document.registration' | 'organization.registration';

export type Reader = <T>(what: string, call: () => Promise<T>) => Promise<T>;

export interface Creation<R> {
  signature: string;
  record: R;
  /** The co-signing authority (the memo's second signer). */
  authority: string;
}

/** The record that created `address`: carried by its oldest successful transaction, co-signed by it. */
export async function creationOf<R extends OrganizationRecord | DocumentRecord | VersionRecord>(
  address: string,
  kind: R['kind'],
  ledger: HistoryReader,
  read: Reader,
  maxPages: number,
  memo?: VerifierMemo,
): Promise<Creation<R> | string> {
  const known = memo?.creation(kind, address);
  if (known) return known as Creation<R>;
  const history: AddressSignature[] = [];
  let before: Signature | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxPages) throw new LedgerUnavailable(`history of ${address} takes more than ${maxPages} pages of getSignaturesForAddress (${history.length} transactions read)`);
    const batch = await read('getSignaturesForAddress', () => ledger.getSignaturesForAddress(asAddress(address), before ? { limit: 1000, before } : { limit: 1000 }));
    // Only an empty page ends the history: an RPC provider may answer fewer entries than asked for (a lower cap on
    // `limit`) before the end, and stopping there would take a later transaction (anyone can send one to the
    // address) for the creation.
    if (batch.length === 0) break;
    history.push(...batch);
    before = batch[batch.length - 1]!.signature;
  }
  const oldest = [...history].reverse().find((s) => s.err === null || s.err === undefined);
  if (!oldest) return `the ledger has no successful transaction for ${address}`;
  const tx = await read('getTransaction', () => ledger.getTransaction(oldest.signature));
  // The ledger contradicts itself (a node that keeps signatures longer than transactions, or endpoints behind one
  // address at different heights): it cannot confirm the creation, which is no evidence against it.
  if (!tx) throw new LedgerUnavailable(`the ledger lists ${oldest.signature} for ${address} but does not return it (an RPC that keeps the full transaction history is needed)`);
  let parsed: EvidenceTransaction;
  try {
    parsed = parseEvidenceTransaction(tx.wire);
  } catch (error) {
    return `the creation transaction of ${address} cannot be decoded: ${(error as Error).message}`;
  }
  const found: ParsedMemo | undefined = parsed.memos.find((m) => m.record?.kind === kind && m.signerAccounts[0] === address);
  if (!found || found.signerAccounts.length < 2) return `the oldest transaction of ${address} (${oldest.signature}) carries no svc/1 ${kind} memo co-signed by it`;
  const creation: Creation<R> = { signature: oldest.signature, record: found.record as R, authority: found.signerAccounts[1]! };
  memo?.keepCreation(kind, address, creation, tx);
  return creation;
}

export async function checkRegistrations(
  r: AcceptanceReceipt,
  creations: {
    version: Promise<Creation<VersionRecord> | string>;
    document: Promise<Creation<DocumentRecord> | string>;
    organization: Promise<Creation<OrganizationRecord> | string>;
  },
  set: (id: RegistrationCheck, status: 'pass' | 'fail', detail: string) => void,
): Promise<void> {
  const version = await creations.version;
  if (typeof version === 'string') {
    set('version.publication', 'fail', version);
  } else {
    const v = version.record;
    const problems = mismatches([
      ['document', v.document, r.document.address],
      ['number', v.number, r.version.number],
      ['label', v.label, r.version.label],
      ['title', v.title, r.version.title],
      ['contentHash', v.contentHash, r.version.contentHash],
      ['fingerprint', v.fingerprint, r.version.fingerprint],
      ['effectiveAt', v.effectiveAt, r.version.effectiveAt],
      ['publication signature', version.signature, r.version.publicationSignature],
    ]);
    if (problems.length === 0) set('version.publication', 'pass', `published in ${version.signature} by ${version.authority}`);
    else set('version.publication', 'fail', problems.join('; '));
  }

  const document = await creations.document;
  if (typeof document === 'string') {
    set('document.registration', 'fail', document);
  } else {
    const d = document.record;
    const problems = mismatches([
      ['organization', d.organization, r.organization.address],
      ['slug', d.slug, r.document.slug],
      ['title', d.title, r.document.title],
    ]);
    if (typeof version !== 'string' && version.authority !== document.authority) {
      problems.push(`the version was published by ${version.authority}, not by the document's authority ${document.authority}`);
    }
    if (problems.length === 0) set('document.registration', 'pass', `created in ${document.signature} by ${document.authority}`);
    else set('document.registration', 'fail', problems.join('; '));
  }

  const organization = await creations.organization;
  if (typeof organization === 'string') {
    set('organization.registration', 'fail', organization);
  } else {
    const problems = mismatches([['name', organization.record.name, r.organization.name]]);
    if (typeof document !== 'string' && document.authority !== organization.authority) {
      problems.push(`the document was created by ${document.authority}, not by the organization's authority ${organization.authority}`);
    }
    if (problems.length === 0) set('organization.registration', 'pass', `created in ${organization.signature} by ${organization.authority}`);
    else set('organization.registration', 'fail', problems.join('; '));
  }
}

/**
 * The fields whose two values differ, as `"<name>: <source> has <value>, receipt has <value>"`.
 * @param pairs `[field name, value in the source, value in the receipt]`.
 */
export function mismatches(pairs: Array<[string, unknown, unknown]>, source = 'ledger'): string[] {
  return pairs.filter(([, theirs, receipts]) => theirs !== receipts).map(([name, t, r]) => `${name}: ${source} has ${String(t)}, receipt has ${String(r)}`);
}

