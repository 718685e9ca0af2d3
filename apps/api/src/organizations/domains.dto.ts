import { ApiProperty } from '@nestjs/swagger';
import { isFQDN, ValidateBy } from 'class-validator';
import { isHostname } from '@svc/evidence';

/** Longest domain a verification accepts (spec §4.10). */
export const DOMAIN_MAX = 48;

/**
 * Whether `v` is a DNS host name of at most 48 characters with a top-level domain (no port, no trailing dot), in
 * ASCII: an internationalized name is given in punycode (`xn--…`), as the organization record on the ledger holds
 * it (docs/protocol.md "Field rules"). Letters may be upper case; the domain is stored lower case.
 */
export function isVerifiableDomain(v: unknown): v is string {
  return (
    typeof v === 'string' &&
    v.length <= DOMAIN_MAX &&
    isHostname(v.toLowerCase()) &&
    isFQDN(v, { require_tld: true, allow_underscores: false, allow_trailing_dot: false, allow_numeric_tld: false })
  );
}

/** `POST /v1/organizations/{orgId}/domains`: `{domain}` required, nothing else. */
export class DomainRequest {
  @ApiProperty({ type: String, maxLength: DOMAIN_MAX, example: 'shop.example.com', description: 'Host name to verify (compared case-insensitively, stored lower-case)' })
  @ValidateBy(
    { name: 'isVerifiableDomain', validator: { validate: isVerifiableDomain, defaultMessage: () => `must be a host name of at most ${DOMAIN_MAX} characters, such as shop.example.com (an internationalized name in punycode, xn--…)` } },
    { context: { code: 'invalid_domain' } },
  )
  domain!: string;
}

/** The TXT record a verification asks the domain's owner to publish. */
export class DomainTxtRecord {
  @ApiProperty({ enum: ['TXT'] })
  type!: 'TXT';
  @ApiProperty({ type: String, example: '_svc-verification.shop.example.com' })
  name!: string;
  @ApiProperty({ type: String, example: 'svc-verification=3f0c9a...' })
  value!: string;
}

/** A domain verification as the dashboard shows it (docs/api.md "Domains"). */
export class DomainVerificationView {
  @ApiProperty({ type: String, format: 'uuid' })
  id!: string;
  @ApiProperty({ type: String })
  domain!: string;
  @ApiProperty({
    enum: ['pending', 'verified', 'expired', 'revoked'],
    description: '`expired`: a pending verification whose window to publish the record closed, or a verified one past `expiresAt`',
  })
  status!: 'pending' | 'verified' | 'expired' | 'revoked';
  @ApiProperty({ type: DomainTxtRecord })
  record!: DomainTxtRecord;
  @ApiProperty({ type: String, description: 'Wallet that started it' })
  startedBy!: string;
  @ApiProperty({ type: String, format: 'date-time' })
  startedAt!: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'The record must be found before this time (7 days after the start)' })
  checkBefore!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  verifiedAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: '365 days after the last successful check' })
  expiresAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revokedAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Ledger transaction attesting the verification; always null (docs/api.md "Domains")' })
  attestationTransaction!: string | null;
}

/** `{verification}` */
export class DomainVerificationResponse {
  @ApiProperty({ type: DomainVerificationView })
  verification!: DomainVerificationView;
}

/** `{verifications}`, newest first. */
export class DomainVerificationListResponse {
  @ApiProperty({ type: [DomainVerificationView] })
  verifications!: DomainVerificationView[];
}

/** Outcome of the DNS look-up of a check. */
export class DomainLookupView {
  @ApiProperty({ type: Boolean, description: 'Whether a TXT record at the name carries the expected value' })
  found!: boolean;
  @ApiProperty({ type: [String], description: 'TXT values found at the name (each record\'s strings joined)' })
  values!: string[];
  @ApiProperty({ type: String, nullable: true, description: 'Null when the DNS answered (with or without records); else the resolver error (ETIMEOUT, ESERVFAIL, ECONNREFUSED...)' })
  error!: string | null;
}

/** `{verification, lookup}` */
export class DomainCheckResponse extends DomainVerificationResponse {
  @ApiProperty({ type: DomainLookupView })
  lookup!: DomainLookupView;
}
