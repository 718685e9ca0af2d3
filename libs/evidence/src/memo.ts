/**
 * Memo records: compact, versioned UTF-8 records carried by Memo v2 instructions.
 * Byte layout is specified in docs/protocol.md ("Memo records").
 *
 * ```text
 * svc/1 org {"domain":"example.com","name":"Example"}
 * svc/1 doc {"organization":"<base58>","slug":"terms","title":"Terms of Service"}
 * svc/1 ver {"contentHash":"<hex>","document":"<base58>","effectiveAt":null,"fingerprint":"<hex>","label":"v1","number":1,"title":"Terms of Service"}
 * svc/1 accept <acceptanceId hex> <versionAddress base58>
 * svc/1 member {"active":true,"member":"<base58>","organization":"<base58>","roles":["admin","publisher"]}
 * svc/1 shard {"operator":"<base58>","organization":"<base58>"}
 * svc/1 batch {"lane":0,"root":"<hex>","sequence":1,"size":2}
 * ```
 * JSON bodies are RFC 8785 canonical JSON of the record without its `kind`.
 */
import canonicalize from 'canonicalize';
import { PROTOCOL_V1 } from './constants';
import { FieldError, MemoFormatError } from './errors';
import type { VersionFields } from './content';
import {
  HEX64,
  SLUG,
  hasExactKeys,
  isBase58Address,
  isEffectiveAt,
  isHostname,
  isPlainObject,
  isText,
  isVersionNumber,
} from './validation';

/** Organization created; the organization's new address co-signs the memo. */
export interface OrganizationRecord {
  kind: 'org';
  /** 1..80 characters. */
  name: string;
  /** Lower-case DNS host name the organization claims, or null. */
  domain: string | null;
}

/** Document created; the document's new address co-signs the memo. */
export interface DocumentRecord {
  kind: 'doc';
  /** Base58 address of the organization. */
  organization: string;
  /** `^[a-z0-9]+(-[a-z0-9]+)*$`, at most 32 characters. */
  slug: string;
  /** 1..200 characters. */
  title: string;
}

/** Version published; the version's new address co-signs the memo. */
export interface VersionRecord extends VersionFields {
  kind: 'ver';
  /** Lower-case hex version fingerprint. */
  fingerprint: string;
}

/** Acceptance relayed; carried next to the Ed25519 precompile instruction, with no accounts. */
export interface AcceptanceRecord {
  kind: 'accept';
  /** Lower-case hex acceptance ID. */
  acceptanceId: string;
  /** Base58 address of the accepted version. */
  versionAddress: string;
}

/** Roles a member record can grant (the authority is the owner and holds every role). */
export const MEMBER_ROLES = ['admin', 'publisher'] as const;
export type MemberRecordRole = (typeof MEMBER_ROLES)[number];

/**
 * A member of an organization added, changed or revoked by the organization's authority; signed by the
 * authority alone (docs/protocol.md "Member record").
 */
export interface MemberRecord {
  kind: 'member';
  /** Base58 address of the organization. */
  organization: string;
  /** Base58 address of the member's wallet; never the authority. */
  member: string;
  /** Distinct roles in ascending order (`admin` before `publisher`); empty when `active` is false. */
  roles: MemberRecordRole[];
  /** False revokes the member. */
  active: boolean;
}

/**
 * A capacity shard of an organization: a durable-nonce account created by the organization's wallet, whose
 * nonce authority is `operator` (docs/protocol.md "Shard record"); the shard's new address co-signs the memo.
 */
export interface ShardRecord {
  kind: 'shard';
  /** Base58 address of the organization. */
  organization: string;
  /** Base58 address of the key that may advance the nonce and withdraw fees from the shard (the service's relayer). */
  operator: string;
}

/**
 * The head of an organization's audit log at one moment, anchored by the service's relayer so that an auditor can
 * show the log was not rewritten afterwards (docs/protocol.md "Audit anchor record").
 */
export interface AuditAnchorRecord {
  kind: 'audit';
  /** Base58 address of the organization. */
  organization: string;
  /** Number of entries the head covers (the sequence of the last one), at least 1. */
  sequence: number;
  /** Lower-case hex SHA-256 hash of entry `sequence` (docs/api.md "Audit log"). */
  head: string;
}

/** Largest number of acceptances one batch anchors (spec §8). */
export const BATCH_MAX_SIZE = 1024;
/** Largest batch lane number: lanes 0..255 close batches in parallel (docs/protocol.md "Batch anchor record"). */
export const BATCH_MAX_LANE = 255;

/**
 * The RFC 6962 Merkle root of a batch of acceptances, anchored by the service's relayer (docs/protocol.md "Batch
 * anchor record"). Each lane numbers its batches 1, 2, 3… without gaps.
 */
export interface BatchAnchorRecord {
  kind: 'batch';
  /** Lane that closed the batch, 0..255. */
  lane: number;
  /** Batch number within the lane, at least 1. */
  sequence: number;
  /** Number of leaves, 1..1024. */
  size: number;
  /** Lower-case hex Merkle tree hash of the batch's leaves. */
  root: string;
}

/** Any record of protocol `svc/1`, discriminated by `kind`. */
export type MemoRecord =
  | OrganizationRecord
  | DocumentRecord
  | VersionRecord
  | AcceptanceRecord
  | MemberRecord
  | ShardRecord
  | AuditAnchorRecord
  | BatchAnchorRecord;
export type MemoKind = MemoRecord['kind'];

const PREFIX = `${PROTOCOL_V1} `;
const JSON_KEYS: { [K in Exclude<MemoKind, 'accept'>]: readonly string[] } = {
  org: ['name', 'domain'],
  doc: ['organization', 'slug', 'title'],
  ver: ['document', 'number', 'label', 'title', 'contentHash', 'fingerprint', 'effectiveAt'],
  member: ['organization', 'member', 'roles', 'active'],
  shard: ['organization', 'operator'],
  audit: ['organization', 'sequence', 'head'],
  batch: ['lane', 'sequence', 'size', 'root'],
};

/**
 * Encodes a record as memo text: `svc/1 <kind> <JCS JSON of the other fields>` (RFC 8785), or
 * `svc/1 accept <acceptanceId> <versionAddress>` for acceptances.
 * @throws FieldError when a field breaks its rule (see docs/protocol.md, "Field rules").
 */
export function encodeMemo(record: MemoRecord): string {
  const problem = recordProblem(record);
  if (problem) throw new FieldError(problem);
  return render(record);
}

/**
 * Parses memo text.
 * @returns the record; null when the memo is not an `svc/1` record (another prefix, including
 *   other protocol versions such as `svc/2 …`), or an `svc/1` record of a kind this library does not
 *   know (kinds are reserved for extensions and ignored by older readers).
 * @throws MemoFormatError when the memo is an `svc/1` record of a known kind that is not byte-exact
 *   canonical, or whose fields break their rules.
 */
export function parseMemo(text: string): MemoRecord | null {
  if (typeof text !== 'string') return null;
  if (text !== PROTOCOL_V1 && !text.startsWith(PREFIX)) return null;
  const rest = text.slice(PREFIX.length);
  const space = rest.indexOf(' ');
  const kind = space < 0 ? rest : rest.slice(0, space);
  if (!/^[a-z][a-z0-9-]*$/.test(kind)) throw new MemoFormatError('svc/1 memo must name a record kind after "svc/1 "');
  if (kind !== 'accept' && !(kind in JSON_KEYS)) return null;
  if (space < 0) throw new MemoFormatError(`svc/1 ${kind} memo has no body`);
  const body = rest.slice(space + 1);
  let record: MemoRecord;
  if (kind === 'accept') {
    const m = /^([^ ]*) ([^ ]*)$/.exec(body);
    if (!m) throw new MemoFormatError('svc/1 accept memo must be "svc/1 accept <acceptanceId> <versionAddress>"');
    record = { kind: 'accept', acceptanceId: m[1]!, versionAddress: m[2]! };
  } else {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new MemoFormatError(`svc/1 ${kind} memo body is not JSON`);
    }
    if (!isPlainObject(json)) throw new MemoFormatError(`svc/1 ${kind} memo body must be a JSON object`);
    const keys = JSON_KEYS[kind as keyof typeof JSON_KEYS];
    if (!hasExactKeys(json, keys)) throw new MemoFormatError(`svc/1 ${kind} memo body must have exactly the keys ${keys.join(', ')}`);
    record = { kind, ...json } as MemoRecord;
  }
  const problem = recordProblem(record);
  if (problem) throw new MemoFormatError(`svc/1 ${kind} memo: ${problem}`);
  if (render(record) !== text) throw new MemoFormatError(`svc/1 ${kind} memo is not in canonical form (RFC 8785)`);
  return record;
}

function render(record: MemoRecord): string {
  switch (record.kind) {
    case 'accept':
      return `${PREFIX}accept ${record.acceptanceId} ${record.versionAddress}`;
    case 'org':
      return `${PREFIX}org ${jcs({ name: record.name, domain: record.domain })}`;
    case 'doc':
      return `${PREFIX}doc ${jcs({ organization: record.organization, slug: record.slug, title: record.title })}`;
    case 'ver':
      return `${PREFIX}ver ${jcs({
        document: record.document,
        number: record.number,
        label: record.label,
        title: record.title,
        contentHash: record.contentHash,
        fingerprint: record.fingerprint,
        effectiveAt: record.effectiveAt,
      })}`;
    case 'member':
      return `${PREFIX}member ${jcs({ organization: record.organization, member: record.member, roles: record.roles, active: record.active })}`;
    case 'shard':
      return `${PREFIX}shard ${jcs({ organization: record.organization, operator: record.operator })}`;
    case 'audit':
      return `${PREFIX}audit ${jcs({ organization: record.organization, sequence: record.sequence, head: record.head })}`;
    case 'batch':
      return `${PREFIX}batch ${jcs({ lane: record.lane, sequence: record.sequence, size: record.size, root: record.root })}`;
    default: {
      const never: never = record;
      throw new FieldError(`unknown record kind ${String((never as { kind?: unknown }).kind)}`);
    }
  }
}

function jcs(value: Record<string, unknown>): string {
  return canonicalize(value) as string;
}

function recordProblem(r: MemoRecord): string | null {
  if (!isPlainObject(r)) return 'record must be an object';
  const hex = (v: unknown) => typeof v === 'string' && HEX64.test(v);
  switch (r.kind) {
    case 'org':
      if (!isText(r.name, 1, 80)) return 'name must be 1 to 80 characters without control characters';
      if (r.domain !== null && !isHostname(r.domain)) return 'domain must be a lower-case host name or null';
      return null;
    case 'doc':
      if (!isBase58Address(r.organization)) return 'organization must be a base58 address';
      if (typeof r.slug !== 'string' || !SLUG.test(r.slug)) return 'slug must match ^[a-z0-9]+(-[a-z0-9]+)*$ and be at most 32 characters';
      if (!isText(r.title, 1, 200)) return 'title must be 1 to 200 characters without control characters';
      return null;
    case 'ver':
      if (!isBase58Address(r.document)) return 'document must be a base58 address';
      if (!isVersionNumber(r.number)) return 'number must be an integer from 1 to 4294967295';
      if (!isText(r.label, 1, 16)) return 'label must be 1 to 16 characters without control characters';
      if (!isText(r.title, 1, 200)) return 'title must be 1 to 200 characters without control characters';
      if (!hex(r.contentHash)) return 'contentHash must be 64 lower-case hex characters';
      if (!hex(r.fingerprint)) return 'fingerprint must be 64 lower-case hex characters';
      if (!isEffectiveAt(r.effectiveAt)) return 'effectiveAt must be a positive integer (unix seconds) or null';
      return null;
    case 'accept':
      if (!hex(r.acceptanceId)) return 'acceptanceId must be 64 lower-case hex characters';
      if (!isBase58Address(r.versionAddress)) return 'versionAddress must be a base58 address';
      return null;
    case 'member':
      if (!isBase58Address(r.organization)) return 'organization must be a base58 address';
      if (!isBase58Address(r.member)) return 'member must be a base58 address';
      if (typeof r.active !== 'boolean') return 'active must be true or false';
      if (!isMemberRoles(r.roles)) return 'roles must be distinct values of admin, publisher in that order';
      if (!r.active && r.roles.length > 0) return 'roles must be empty when active is false';
      return null;
    case 'shard':
      if (!isBase58Address(r.organization)) return 'organization must be a base58 address';
      if (!isBase58Address(r.operator)) return 'operator must be a base58 address';
      if (r.operator === r.organization) return 'operator must differ from the organization';
      return null;
    case 'audit':
      if (!isBase58Address(r.organization)) return 'organization must be a base58 address';
      if (!Number.isSafeInteger(r.sequence) || r.sequence < 1) return 'sequence must be a positive integer';
      if (!hex(r.head)) return 'head must be 64 lower-case hex characters';
      return null;
    case 'batch':
      if (!Number.isSafeInteger(r.lane) || r.lane < 0 || r.lane > BATCH_MAX_LANE) return `lane must be an integer from 0 to ${BATCH_MAX_LANE}`;
      if (!Number.isSafeInteger(r.sequence) || r.sequence < 1) return 'sequence must be a positive integer';
      if (!Number.isSafeInteger(r.size) || r.size < 1 || r.size > BATCH_MAX_SIZE) return `size must be an integer from 1 to ${BATCH_MAX_SIZE}`;
      if (!hex(r.root)) return 'root must be 64 lower-case hex characters';
      return null;
    default:
      return `unknown record kind ${String((r as { kind?: unknown }).kind)}`;
  }
}

/** Whether `value` is a list of distinct member roles in the order of {@link MEMBER_ROLES}. */
function isMemberRoles(value: unknown): value is MemberRecordRole[] {
  if (!Array.isArray(value)) return false;
  let last = -1;
  for (const role of value) {
    const index = MEMBER_ROLES.indexOf(role as MemberRecordRole);
    if (index <= last) return false;
    last = index;
  }
  return true;
}
