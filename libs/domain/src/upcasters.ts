/**
 * Upcasting on read: stored events keep the shape they were written with (their schema file in
 * `event-schemas/<Type>.v<N>.json` stays frozen); readers only ever see the current shape. One pure
 * function per (type, fromVersion) turns version N into N + 1; {@link upcast} chains them up to
 * {@link CURRENT_SCHEMA_VERSION}.
 */
import type { DomainEventType } from './events';
import { CURRENT_SCHEMA_VERSION, isDomainEventType } from './schema-versions';

/** Event data as stored: a JSON object. */
export type StoredData = Readonly<Record<string, unknown>>;

/** What an upcaster may read from the event's metadata (a subset of the event store's metadata). */
export interface UpcastMetadata {
  /** ISO 8601 time at which the event was decided. */
  readonly occurredAt: string;
}

/** The data of an event in a newer shape, and the schema version of that shape. */
export interface UpcastResult {
  data: Record<string, unknown>;
  schemaVersion: number;
}

/** Turns the data of one version into the next version's (pure). */
export type UpcastStep = (data: StoredData, metadata: UpcastMetadata) => Record<string, unknown>;

/**
 * `SignInCompleted` v1 → v2: adds `signedAt`, the ISO 8601 UTC time of the wallet's sign-in signature
 * (needed by the fresh-signature rule of spec §5). A v1 event was appended in the same command that
 * checked the signature, so its `metadata.occurredAt` is that time; it is normalised to UTC
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`).
 * @throws RangeError when `occurredAt` is not a valid time.
 */
export function signInCompletedV1ToV2(data: StoredData, metadata: UpcastMetadata): Record<string, unknown> {
  const time = new Date(metadata.occurredAt);
  if (Number.isNaN(time.getTime())) throw new RangeError(`SignInCompleted v1: occurredAt ${JSON.stringify(metadata.occurredAt)} is not a time`);
  return { ...data, signedAt: time.toISOString() };
}

/**
 * `AcceptanceChallengeIssued` v1 → v2: adds `acceptanceSessionId` and `externalUserRef`, both null: a v1
 * challenge was issued before acceptance sessions existed, so none was presented.
 */
export function acceptanceChallengeIssuedV1ToV2(data: StoredData): Record<string, unknown> {
  return { ...data, acceptanceSessionId: null, externalUserRef: null };
}

/**
 * `SignInChallengeIssued` v1 → v2: adds `purpose` (`sign_in`: v1 knew no other), `sessionId` (null) and the
 * issued fields `domain`, `statement`, `uri`, `chainId`, read from the v1 message, which always has the
 * eleven-line layout of docs/protocol.md §10 (`<domain> wants you to sign in…`, address, empty line,
 * statement, empty line, then `URI: `, `Version: `, `Chain ID: `, … one per line).
 * @throws RangeError when the stored message does not have that layout.
 */
export function signInChallengeIssuedV1ToV2(data: StoredData): Record<string, unknown> {
  const lines = typeof data['message'] === 'string' ? data['message'].split('\n') : [];
  const suffix = ' wants you to sign in with your Solana account:';
  const valueOf = (index: number, key: string) => {
    const line = lines[index];
    if (line === undefined || !line.startsWith(`${key}: `)) throw new RangeError(`SignInChallengeIssued v1: line ${index + 1} of the message is not "${key}: …"`);
    return line.slice(key.length + 2);
  };
  if (lines.length !== 11 || !lines[0]!.endsWith(suffix)) throw new RangeError('SignInChallengeIssued v1: the message is not an issued sign-in message');
  return {
    ...data,
    purpose: 'sign_in',
    sessionId: null,
    domain: lines[0]!.slice(0, -suffix.length),
    statement: lines[3],
    uri: valueOf(5, 'URI'),
    chainId: valueOf(7, 'Chain ID'),
  };
}

/** `AcceptanceChallengeIssued` v2 → v3: adds `evidenceMode`, `DIRECT_ONCHAIN`: the only mode a v2 challenge was issued in. */
export function acceptanceChallengeIssuedV2ToV3(data: StoredData): Record<string, unknown> {
  return { ...data, evidenceMode: 'DIRECT_ONCHAIN' };
}

/** `AcceptanceSubmitted` v1 → v2: the v1 shape is a v2 direct-mode submission (v2 only widens it); unchanged. */
export function acceptanceSubmittedV1ToV2(data: StoredData): Record<string, unknown> {
  return { ...data };
}

/** `AcceptanceRelayed` v1 → v2: adds `batch: null`; a v1 acceptance was relayed in its own transaction. */
export function acceptanceRelayedV1ToV2(data: StoredData): Record<string, unknown> {
  return { ...data, batch: null };
}

/** Every upcaster, by type then by the version it upcasts from. */
export const UPCASTERS: { readonly [T in DomainEventType]?: Readonly<Record<number, UpcastStep>> } = {
  SignInCompleted: { 1: signInCompletedV1ToV2 },
  AcceptanceChallengeIssued: { 1: acceptanceChallengeIssuedV1ToV2, 2: acceptanceChallengeIssuedV2ToV3 },
  AcceptanceSubmitted: { 1: acceptanceSubmittedV1ToV2 },
  AcceptanceRelayed: { 1: acceptanceRelayedV1ToV2 },
  SignInChallengeIssued: { 1: signInChallengeIssuedV1ToV2 },
};

/**
 * Brings stored event data to the current shape of its type by chaining the upcasters from
 * `schemaVersion` to {@link CURRENT_SCHEMA_VERSION}. Types this domain does not know, and data already
 * current, are returned unchanged (same version). Pure: `data` is never modified.
 * @param type event type as stored
 * @param schemaVersion `metadata.schemaVersion` as stored (integer >= 1)
 * @param data event data as stored
 * @param metadata the event's metadata (upcasters may derive a new field from it)
 * @throws Error when the version is newer than the current one or an upcaster in the chain is missing.
 */
export function upcast(type: string, schemaVersion: number, data: StoredData, metadata: UpcastMetadata): UpcastResult {
  if (!isDomainEventType(type)) return { data: { ...data }, schemaVersion };
  const current = CURRENT_SCHEMA_VERSION[type];
  if (schemaVersion > current) {
    throw new Error(`${type} schema version ${schemaVersion} is newer than this service's (${current})`);
  }
  let shaped: Record<string, unknown> = { ...data };
  for (let version = schemaVersion; version < current; version++) {
    const step = UPCASTERS[type]?.[version];
    if (!step) throw new Error(`no upcaster for ${type} from schema version ${version}`);
    shaped = step(shaped, metadata);
  }
  return { data: shaped, schemaVersion: current };
}
