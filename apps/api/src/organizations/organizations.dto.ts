import { AddressField, DocumentSourceField, EffectiveAtField, SignatureField, StringField, VersionLabelField, VersionTitleField } from '@svc/http';

/** Longest draft source (spec §8: 1 to 2,000,000 characters). */
const SOURCE_MAX = 2_000_000;
/** Longest change summary (spec §8). */
const CHANGE_SUMMARY_MAX = 4000;

/** `{address}` of `POST /v1/organizations/sync` and `POST /v1/organizations/{orgId}/documents/sync` (spec §4.10). */
export class AddressRequest {
  @AddressField({ description: 'On-chain address (base58, 32 bytes)' })
  address!: string;
}

/**
 * `POST /v1/documents/{documentId}/drafts` (spec §4.10). Title and label follow the protocol's rules for
 * version records (docs/protocol.md, "Field rules"), so every draft accepted here can be prepared.
 */
export class CreateDraftRequest {
  @VersionTitleField()
  title!: string;

  @VersionLabelField()
  versionLabel!: string;

  @EffectiveAtField()
  effectiveAt?: number | null;

  @DocumentSourceField(SOURCE_MAX, { description: 'Markdown text of the version' })
  source!: string;

  @StringField(0, CHANGE_SUMMARY_MAX, { presence: 'nullable' })
  changeSummary?: string | null;
}

/** `PATCH /v1/drafts/{draftId}`: the keys of a draft, all optional; only effectiveAt and changeSummary may be null. */
export class UpdateDraftRequest {
  @VersionTitleField({ presence: 'optional' })
  title?: string;

  @VersionLabelField({ presence: 'optional' })
  versionLabel?: string;

  @EffectiveAtField()
  effectiveAt?: number | null;

  @DocumentSourceField(SOURCE_MAX, { presence: 'optional', description: 'Markdown text of the version' })
  source?: string;

  @StringField(0, CHANGE_SUMMARY_MAX, { presence: 'nullable' })
  changeSummary?: string | null;
}

/** `POST /v1/publications/confirm` (spec §4.10). */
export class ConfirmPublicationRequest {
  @SignatureField({ description: 'Signature of the publication transaction (base58, 64 bytes)' })
  signature!: string;
}
