import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min, ValidateIf, ValidateBy } from 'class-validator';
import { EXT, PatternField, SLUG, isAddress } from '@svc/http';

/** `POST /v1/acceptance-sessions` (spec §4.5, §8); no other keys. */
export class CreateAcceptanceSessionRequest {
  @ApiPropertyOptional({ type: String, description: 'Address (ADDR) or slug (SLUG) of one of the organization\'s documents; the session then works only for it' })
  @ValidateIf((_, v) => v !== undefined)
  @ValidateBy({
    name: 'isAddressOrSlug',
    validator: { validate: (v: unknown) => typeof v === 'string' && (isAddress(v) || SLUG.test(v)), defaultMessage: () => 'document: must be a document address or slug' },
  })
  document?: string;

  @PatternField(EXT, 1, 128, 'must be 1 to 128 printable ASCII characters without spaces', 'invalid_request', {
    presence: 'optional',
    description: "The organization's reference of its user (EXT); kept off the ledger and out of the signed message",
  })
  externalUserRef?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 60, maximum: 3600, default: 900, description: 'Seconds the session can be presented with a challenge' })
  @ValidateIf((_, v) => v !== undefined)
  @IsInt({ message: 'ttlSeconds: must be an integer from 60 to 3600' })
  @Min(60, { message: 'ttlSeconds: must be an integer from 60 to 3600' })
  @Max(3600, { message: 'ttlSeconds: must be an integer from 60 to 3600' })
  ttlSeconds?: number;
}
