/**
 * Stream `document-<address>`: a document created on the ledger by its organization, and its versions in
 * number order (spec §4.10 documents and publications; docs/protocol.md "Document record", "Version record").
 * The stream's expected revision keeps version numbers gap-free: two confirmations of version N race on it.
 */
import type { Decider } from '../decider';
import { DomainError } from '../errors';
import type { EventOf, VersionPublishedData } from '../events';
import { PUBLISHERS } from './draft.decider';
import { isAuthority, requireRole, type LedgerTransactionFacts, type OrganizationFacts, type ProtocolRecord } from './ledger-facts';

export type DocumentEvent = EventOf<'DocumentSynced'> | EventOf<'VersionPublished'>;

export interface DocumentState {
  documentId: string;
  address: string;
  organizationId: string;
  organization: string;
  slug: string;
  versions: readonly VersionPublishedData[];
}

/** The version record of a publication transaction (docs/protocol.md "Version record"). */
export type VersionRecord = Extract<ProtocolRecord, { kind: 'ver' }>;

/** The draft a publication completes, as folded from its own stream (re-checked there when marked published). */
export interface PreparedDraftFacts {
  draftId: string;
  number: number;
  fingerprint: string;
}

export type DocumentCommand =
  | {
      kind: 'SyncDocument';
      address: string;
      wallet: string;
      documentId: string;
      /** Null when the wallet is not a member of the organization named in the URL (reads as 404). */
      organization: OrganizationFacts | null;
      /** The creation transaction; null when the stream exists already (not read). */
      creation: LedgerTransactionFacts | null;
    }
  | {
      kind: 'PublishVersion';
      wallet: string;
      transaction: LedgerTransactionFacts;
      record: VersionRecord;
      organization: OrganizationFacts;
      /** Fingerprint recomputed by the caller from the record's fields (docs/protocol.md "Fingerprint"). */
      recomputedFingerprint: string;
      /** The prepared draft whose number and fingerprint match the record, or null. */
      draft: PreparedDraftFacts | null;
      /**
       * The signature of the version address's creation on the ledger (its oldest successful transaction,
       * docs/protocol.md §7.2), which must be this publication; null when the caller did not read it because the
       * version is recorded already with this very transaction (a repeated confirm).
       */
      addressCreation: string | null;
    };

/** The current (highest-numbered) version, or null before the first publication. */
export function currentVersion(state: DocumentState | null): VersionPublishedData | null {
  return state && state.versions.length > 0 ? state.versions[state.versions.length - 1]! : null;
}

/**
 * The version record a publication transaction carries, whether the transaction succeeded or failed: the record
 * names the document, whose organization decides who may confirm it, and only then does a failure count
 * (`PublishVersion` refuses a failed one with transaction_failed after the access checks).
 * @throws DomainError not_a_publication (400: no version record).
 */
export function publicationRecord(tx: LedgerTransactionFacts): VersionRecord {
  if (tx.record?.kind !== 'ver' || !tx.objectSigner) throw new DomainError('not_a_publication', 'the transaction is not a version publication');
  return tx.record;
}

export const documentDecider: Decider<DocumentCommand, DocumentEvent, DocumentState | null> = {
  eventTypes: ['DocumentSynced', 'VersionPublished'],
  initialState: null,
  evolve(state, event) {
    switch (event.type) {
      case 'DocumentSynced': {
        const d = event.data;
        return { documentId: d.documentId, address: d.address, organizationId: d.organizationId, organization: d.organization, slug: d.slug, versions: [] };
      }
      case 'VersionPublished':
        return state && { ...state, versions: [...state.versions, event.data] };
    }
  },
  /**
   * Sync of a known document is a no-op; confirming an already recorded version again (the same transaction) is a no-op.
   * @throws DomainError not_found (404: organization or document unknown to this wallet, no creation transaction),
   *   forbidden (403: the signed-in wallet is a member who is neither owner nor publisher), transaction_failed
   *   (409: a publication that failed on the ledger, judged after the two access refusals),
   *   chain_state (409: not a document of this organization on the ledger, a document or version record not
   *   co-signed by the organization's authority (docs/protocol.md §7.2), a version address that is not fresh (another version's, or used before the publication), a
   *   fingerprint that does not match, a gap in numbers, no matching prepared draft),
   *   version_superseded (409: the number is taken).
   */
  decide(command, state) {
    switch (command.kind) {
      case 'SyncDocument': {
        const org = command.organization;
        if (!org || !org.members.some((m) => m.address === command.wallet)) throw new DomainError('not_found', 'organization not found');
        requireRole(org, command.wallet, PUBLISHERS);
        if (state) {
          if (state.organizationId !== org.organizationId) throw new DomainError('not_found', 'document not found');
          return [];
        }
        const tx = command.creation;
        if (!tx) throw new DomainError('not_found', `no transaction on the ledger for ${command.address}`);
        const record = tx.record;
        if (!tx.succeeded || record?.kind !== 'doc' || tx.objectSigner !== command.address) {
          throw new DomainError('chain_state', `${command.address} was not created as a document on the ledger`);
        }
        if (record.organization !== org.address) throw new DomainError('chain_state', 'the document belongs to another organization');
        // docs/protocol.md §7.2: a document belongs to the organization only if its authority is the organization's.
        if (!isAuthority(org, tx.actor)) {
          throw new DomainError('chain_state', "the document record is not co-signed by the organization's authority (its wallet), so it does not belong to the organization (docs/protocol.md §7.2)");
        }
        return [
          {
            type: 'DocumentSynced',
            data: {
              documentId: command.documentId,
              address: command.address,
              organizationId: org.organizationId,
              organization: org.address,
              slug: record.slug,
              title: record.title,
              creationSignature: tx.signature,
              slot: tx.slot,
              blockTime: tx.blockTime,
            },
          },
        ];
      }
      case 'PublishVersion': {
        const { record, transaction: tx, organization: org } = command;
        if (!state) throw new DomainError('not_found', 'the publication names a document that is not synced');
        if (state.organizationId !== org.organizationId || !org.members.some((m) => m.address === command.wallet)) {
          throw new DomainError('not_found', 'document not found');
        }
        requireRole(org, command.wallet, PUBLISHERS);
        // After the access checks, so that a wallet without the right learns that (404/403), whatever the outcome.
        if (!tx.succeeded) throw new DomainError('transaction_failed', 'the publication transaction failed on the ledger');
        const versionAddress = tx.objectSigner!;
        const recorded = state.versions.find((v) => v.versionAddress === versionAddress);
        if (recorded?.transactionSignature === tx.signature) return [];
        if (recorded) {
          throw new DomainError('chain_state', `the version address is version ${recorded.number}'s, created by another transaction; a version's address is a fresh key (docs/protocol.md §7.1)`);
        }
        // docs/protocol.md §7.2: a version belongs to the organization only if its authority is the organization's. A
        // publisher prepares and confirms, but the organization's wallet co-signs the record.
        if (!isAuthority(org, tx.actor)) {
          throw new DomainError('chain_state', "the publication is not co-signed by the organization's authority (its wallet), so the version would not belong to the organization (docs/protocol.md §7.2)");
        }
        // docs/protocol.md §7.1–7.2: the version is found again as its address's oldest successful transaction, so
        // only a publication that is that transaction (a fresh key, not the publisher's own) can be recorded.
        if (versionAddress === tx.actor || command.addressCreation !== tx.signature) {
          throw new DomainError(
            'chain_state',
            `the version address ${versionAddress} was used before this publication, so the ledger does not show it as the version's creation; sign each publication with a fresh version key (docs/protocol.md §7.1)`,
          );
        }
        if (command.recomputedFingerprint !== record.fingerprint) throw new DomainError('chain_state', 'the fingerprint on the ledger does not match the version fields');
        const count = state.versions.length;
        if (record.number <= count) throw new DomainError('version_superseded', `version ${record.number} already exists; the next number is ${count + 1}`);
        if (record.number !== count + 1) throw new DomainError('chain_state', `the next version number is ${count + 1}, the ledger says ${record.number}`);
        const draft = command.draft;
        if (!draft || draft.fingerprint !== record.fingerprint || draft.number !== record.number) {
          throw new DomainError('chain_state', 'no prepared draft matches this publication (content hash, number and fingerprint)');
        }
        return [
          {
            type: 'VersionPublished',
            data: {
              documentId: state.documentId,
              document: record.document,
              organizationId: org.organizationId,
              organization: org.address,
              versionAddress,
              number: record.number,
              label: record.label,
              title: record.title,
              contentHash: record.contentHash,
              fingerprint: record.fingerprint,
              effectiveAt: record.effectiveAt,
              transactionSignature: tx.signature,
              slot: tx.slot,
              blockTime: tx.blockTime,
              publisher: tx.actor!,
              draftId: draft.draftId,
            },
          },
        ];
      }
    }
  },
};
