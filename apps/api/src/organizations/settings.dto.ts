import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, Max, Min, ValidateBy, ValidateIf, ValidateNested } from 'class-validator';
import type { OrganizationSettingsValues } from '@svc/domain';
import { isRequestDomain } from '@svc/evidence';

/** A host name as a requesting site is compared with it: lower-case labels of letters, digits and hyphens, optional port 1 to 65535 (the requestDomain rule, docs/protocol.md §1.1). */
const HOST_NAME = /^(?=.{1,48}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::[1-9][0-9]{0,4})?$/;

const optional = () => ValidateIf((_, v) => v !== undefined);

/**
 * An allowed site as the host of a browser's Origin names it: `shop.example.com:443` and `shop.example.com:80` are
 * `shop.example.com`, since an Origin never carries its scheme's default port (RFC 6454 §6.2) and the entry names no
 * scheme. The host is read by the WHATWG URL parser, as the challenge reads the Origin's. Entries that are no host
 * name are returned unchanged, for validation to refuse.
 */
function canonicalRequestSite(entry: unknown): unknown {
  if (typeof entry !== 'string' || !HOST_NAME.test(entry)) return entry;
  let url: URL;
  try {
    url = new URL(`https://${entry}`);
  } catch {
    return entry;
  }
  if (url.port === '80') url.port = '';
  return url.host;
}

/** The entries in their canonical form, each once, in the order given. */
function canonicalRequestSites(value: unknown): unknown {
  return Array.isArray(value) ? [...new Set(value.map(canonicalRequestSite))] : value;
}

/** `products` of spec §2.8: `gate` required, no other keys. */
export class ProductsSettings {
  @ApiProperty({ type: Boolean })
  @IsBoolean({ message: 'products.gate: must be a boolean' })
  gate!: boolean;
}

/**
 * `PATCH /v1/organizations/{orgId}/settings` (spec §2.8): every key optional, no other keys. Meanings, defaults and
 * which values this deployment refuses at challenge time: docs/api.md "Organization settings".
 */
export class SettingsRequest implements Partial<OrganizationSettingsValues> {
  @ApiPropertyOptional({ type: Boolean })
  @optional()
  @IsBoolean({ message: 'requireAcceptanceSessions: must be a boolean' })
  requireAcceptanceSessions?: boolean;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', maxLength: 48, pattern: HOST_NAME.source },
    maxItems: 20,
    description: 'Host names (as in the Origin header, lower case) allowed to request signatures; empty: any site. Stored without a default port (`:443`, `:80`) and each once',
  })
  @Transform(({ value }) => canonicalRequestSites(value))
  @optional()
  @ArrayMaxSize(20, { message: 'allowedRequestDomains: at most 20 entries' })
  @ValidateBy(
    { name: 'isHostName', validator: { validate: (v: unknown) => typeof v === 'string' && HOST_NAME.test(v) && isRequestDomain(v), defaultMessage: () => 'allowedRequestDomains: each entry must be a lower-case host name of at most 48 characters, with an optional port 1 to 65535' } },
    { each: true },
  )
  // Lowest, so it runs first: class-validator checks a property's constraints bottom-up and stops at the first failure.
  @IsArray({ message: 'allowedRequestDomains: must be an array of host names' })
  allowedRequestDomains?: string[];

  @ApiPropertyOptional({ enum: ['WALLET_ONLY', 'PASSKEY_ONLY', 'WALLET_OR_PASSKEY', 'ACCOUNT_AND_PASSKEY'] })
  @optional()
  @IsIn(['WALLET_ONLY', 'PASSKEY_ONLY', 'WALLET_OR_PASSKEY', 'ACCOUNT_AND_PASSKEY'], { message: 'signingPolicy: must be WALLET_ONLY, PASSKEY_ONLY, WALLET_OR_PASSKEY or ACCOUNT_AND_PASSKEY' })
  signingPolicy?: OrganizationSettingsValues['signingPolicy'];

  @ApiPropertyOptional({ enum: ['svc', 'organization'] })
  @optional()
  @IsIn(['svc', 'organization'], { message: 'feeSponsor: must be svc or organization' })
  feeSponsor?: OrganizationSettingsValues['feeSponsor'];

  @ApiPropertyOptional({ type: Boolean })
  @optional()
  @IsBoolean({ message: 'sponsorFallbackToStele: must be a boolean' })
  sponsorFallbackToStele?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 1_000_000_000_000, description: 'Lamports' })
  @optional()
  @IsInt({ message: 'sponsorLowBalanceLamports: must be an integer from 0 to 1000000000000' })
  @Min(0, { message: 'sponsorLowBalanceLamports: must be an integer from 0 to 1000000000000' })
  @Max(1_000_000_000_000, { message: 'sponsorLowBalanceLamports: must be an integer from 0 to 1000000000000' })
  sponsorLowBalanceLamports?: number;

  @ApiPropertyOptional({ enum: ['DIRECT_ONCHAIN', 'MERKLE_BATCHED'] })
  @optional()
  @IsIn(['DIRECT_ONCHAIN', 'MERKLE_BATCHED'], { message: 'evidenceMode: must be DIRECT_ONCHAIN or MERKLE_BATCHED' })
  evidenceMode?: OrganizationSettingsValues['evidenceMode'];

  @ApiPropertyOptional({ type: ProductsSettings })
  @optional()
  @IsObject({ message: 'products: must be an object {gate: boolean}' })
  @ValidateNested()
  @Type(() => ProductsSettings)
  products?: ProductsSettings;
}
