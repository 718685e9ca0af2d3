import { generateKeyPairSigner, getBase58Decoder, signBytes, type KeyPairSigner } from '@solana/kit';
import {
  buildDocumentTransaction,
  buildMemberTransaction,
  buildOrganizationTransaction,
  buildPublicationTransaction,
  buildShardTransaction,
  canonicalContent,
  contentHash,
  type AcceptanceReceipt,
  type MemberRecordRole,
  type VerificationReport,
} from '@svc/evidence';
import type { Ledger } from '@svc/ledger';
import { ApiClient, ApiError, cookiesOf, type StoredSession } from './api-client';

const base58 = getBase58Decoder();

/** Ed25519 signature of `text` (UTF-8) by the key pair, base58. */
export async function signText(signer: KeyPairSigner, text: string): Promise<string> {
  const signature = await signBytes(signer.keyPair.privateKey, new TextEncoder().encode(text));
  return base58.decode(signature);
}

/** Signs in to the dashboard with a wallet (challenge, sign, verify) and returns the session cookies. */
export async function signIn(client: ApiClient, wallet: KeyPairSigner): Promise<StoredSession> {
  const challenge = await client.request<{ message: string }>('POST', '/v1/auth/challenge', { address: wallet.address });
  const signature = await signText(wallet, challenge.message);
  const { response, text } = await client.raw('POST', '/v1/auth/verify', { address: wallet.address, signedMessage: challenge.message, signature });
  if (!response.ok) {
    const err = JSON.parse(text).error;
    throw new ApiError(response.status, err.code, err.message);
  }
  const cookies = cookiesOf(response);
  const body = JSON.parse(text) as { expiresAt: string };
  return { api: client.base, address: wallet.address, session: cookies.svc_session, csrf: cookies.svc_csrf, expiresAt: body.expiresAt };
}

/** Creates an organization on the ledger: a fresh address co-signs the creation memo. */
export async function createOrganizationOnLedger(ledger: Ledger, authority: KeyPairSigner, name: string, domain: string | null = null) {
  const organization = await generateKeyPairSigner();
  const lifetime = await ledger.getLatestBlockhash();
  const tx = await buildOrganizationTransaction({ authority, organization, name, domain, lifetime });
  const signature = await ledger.sendTransaction(tx.wire, { commitment: 'confirmed' });
  return { address: organization.address, signature };
}

/** Creates a document of an organization on the ledger. */
export async function createDocumentOnLedger(ledger: Ledger, authority: KeyPairSigner, organization: string, slug: string, title: string) {
  const document = await generateKeyPairSigner();
  const lifetime = await ledger.getLatestBlockhash();
  const tx = await buildDocumentTransaction({ authority, document, organization, slug, title, lifetime });
  const signature = await ledger.sendTransaction(tx.wire, { commitment: 'confirmed' });
  return { address: document.address, signature };
}

/**
 * Adds, changes (`active` true) or revokes (`active` false, no roles) a member of an organization on the ledger: a
 * member record signed by the organization's authority (docs/protocol.md "Member record"). The dashboard reads it on
 * the next organization sync or refresh.
 */
export async function writeMemberOnLedger(
  ledger: Ledger,
  authority: KeyPairSigner,
  input: { organization: string; member: string; roles: MemberRecordRole[]; active: boolean },
) {
  const lifetime = await ledger.getLatestBlockhash();
  const tx = await buildMemberTransaction({ authority, ...input, lifetime });
  return ledger.sendTransaction(tx.wire, { commitment: 'confirmed' });
}

/**
 * Creates a capacity shard of an organization on the ledger (docs/protocol.md "Shard record"): a durable-nonce account
 * at a fresh address holding `lamports` (rent exemption included) whose nonce authority is `operator`, the service's
 * relayer (`relayer` of `GET /v1/network`). The dashboard reads it with `POST /v1/organizations/{orgId}/shards/sync`.
 */
export async function createShardOnLedger(ledger: Ledger, authority: KeyPairSigner, input: { organization: string; operator: string; lamports: bigint }) {
  const shard = await generateKeyPairSigner();
  const lifetime = await ledger.getLatestBlockhash();
  const tx = await buildShardTransaction({ authority, shard, ...input, lifetime });
  const signature = await ledger.sendTransaction(tx.wire, { commitment: 'confirmed' });
  return { address: shard.address, signature };
}

export interface OrganizationRecord {
  id: string;
  address: string;
  name: string;
  /** The wallet that created it on the ledger, its owner: the only key that may create its documents and versions. */
  authority: string;
}
export interface DocumentRecord {
  id: string;
  address: string;
  slug: string;
  title: string;
  currentVersion: PublishedVersion | null;
}
/** A published version as the API returns it (`VersionView` of the read models). */
export interface PublishedVersion {
  address: string;
  number: number;
  label: string;
  title: string;
  fingerprint: string;
  contentHash: string;
  transactionSignature: string;
}

/** The organization as the dashboard knows it, syncing it from the ledger first when needed. */
export async function syncOrganization(client: ApiClient, address: string): Promise<OrganizationRecord> {
  const { organization } = await client.request<{ organization: OrganizationRecord }>('POST', '/v1/organizations/sync', { address });
  return organization;
}

export async function syncDocument(client: ApiClient, organizationId: string, address: string): Promise<DocumentRecord> {
  const { document } = await client.request<{ document: DocumentRecord }>('POST', `/v1/organizations/${organizationId}/documents/sync`, { address });
  return document;
}

/**
 * Publishes a text as the next version of a document: draft, prepare, a publication transaction signed by the
 * organization's wallet with a fresh version address, then confirm.
 */
export async function publishVersion(
  client: ApiClient,
  ledger: Ledger,
  authority: KeyPairSigner,
  input: { documentId: string; source: string; label: string; title: string; effectiveAt?: number | null; changeSummary?: string },
): Promise<{ version: PublishedVersion; signature: string }> {
  const { draft } = await client.request<{ draft: { id: string; contentHash: string } }>('POST', `/v1/documents/${input.documentId}/drafts`, {
    title: input.title,
    versionLabel: input.label,
    source: input.source,
    effectiveAt: input.effectiveAt ?? null,
    ...(input.changeSummary ? { changeSummary: input.changeSummary } : {}),
  });
  const expectedHash = contentHash(canonicalContent(input.source));
  if (draft.contentHash !== expectedHash) throw new Error(`the service hashed the text to ${draft.contentHash}, expected ${expectedHash}`);
  const { publication } = await client.request<{
    publication: { document: string; number: number; label: string; title: string; contentHash: string; fingerprint: string; effectiveAt: number | null };
  }>('POST', `/v1/drafts/${draft.id}/prepare`);
  const version = await generateKeyPairSigner();
  const lifetime = await ledger.getLatestBlockhash();
  const tx = await buildPublicationTransaction({ authority, version, ...publication, lifetime });
  const signature = await ledger.sendTransaction(tx.wire, { commitment: 'confirmed' });
  const confirmed = await client.request<{ version: PublishedVersion }>('POST', '/v1/publications/confirm', { signature });
  return { version: confirmed.version, signature };
}

export interface AcceptanceResult {
  acceptanceId: string;
  transactionSignature: string;
  slot: number;
  status: string;
  fee: { payer: string; lamports: number; sponsor: string; reimbursedLamports: number | null };
  receiptUrl: string;
  message: string;
}

/** Accepts the current version of a document as a wallet signer: challenge (with an acceptance session if given), sign the exact message, submit. */
export async function acceptAsWallet(
  client: ApiClient,
  signer: KeyPairSigner,
  input: { organization: string; document: string; origin: string; sessionToken?: string },
): Promise<AcceptanceResult> {
  const challenge = await client.request<{ challengeId: string; message: string; clientBinding: string }>(
    'POST',
    '/v1/acceptance/challenges',
    { organization: input.organization, document: input.document, signer: signer.address, ...(input.sessionToken ? { sessionToken: input.sessionToken } : {}) },
    { origin: input.origin },
  );
  const signature = await signText(signer, challenge.message);
  const result = await client.request<Omit<AcceptanceResult, 'message'>>(
    'POST',
    `/v1/acceptance/challenges/${challenge.challengeId}/submit`,
    { clientBinding: challenge.clientBinding, signature },
    { origin: input.origin },
  );
  return { ...result, message: challenge.message };
}

/** The public receipt of an acceptance and the service's report. */
export function fetchReceipt(client: ApiClient, acceptanceId: string) {
  return client.request<{ receipt: AcceptanceReceipt; report: VerificationReport }>('GET', `/v1/public/acceptances/${acceptanceId}/receipt`);
}
