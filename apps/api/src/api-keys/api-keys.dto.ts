import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, Max, Min, ValidateIf } from 'class-validator';
import type { ApiKeyScope } from '@svc/domain';
import { DisplayTextField } from '@svc/http';

/** The seven scopes of spec §5 "API keys" rule 2. */
export const API_KEY_SCOPES: readonly ApiKeyScope[] = ['acceptances:write', 'acceptances:read', 'documents:read', 'proofs:write', 'proofs:read', 'signers:read', 'signers:write'];

/** `POST /v1/organizations/{orgId}/api-keys` (spec §4.10, §8): no other keys. */
export class CreateApiKeyRequest {
  @DisplayTextField(1, 80, { description: 'A name to recognise the key by' })
  name!: string;

  @ApiProperty({ type: [String], enum: API_KEY_SCOPES, minItems: 1, description: 'At least one scope' })
  @ArrayMinSize(1, { message: 'scopes: at least one scope' })
  @ArrayMaxSize(API_KEY_SCOPES.length * 4, { message: 'scopes: too many entries' })
  @IsIn(API_KEY_SCOPES, { each: true, message: `scopes: each must be one of ${API_KEY_SCOPES.join(', ')}` })
  // Lowest, so it runs first: class-validator checks a property's constraints bottom-up and stops at the first failure.
  @IsArray({ message: 'scopes: must be an array of scopes' })
  scopes!: ApiKeyScope[];

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 730, description: 'Days until the key expires; absent: never' })
  @ValidateIf((_, v) => v !== undefined)
  @IsInt({ message: 'expiresInDays: must be an integer from 1 to 730' })
  @Min(1, { message: 'expiresInDays: must be an integer from 1 to 730' })
  @Max(730, { message: 'expiresInDays: must be an integer from 1 to 730' })
  expiresInDays?: number;
}
