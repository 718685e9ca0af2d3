import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { ADDR, B64URL, P256ID, SIG } from '@svc/http';

const ADDR_OR_P256 = new RegExp(`${ADDR.source}|${P256ID.source}`);

export class ChallengeRequest {
  @ApiProperty({ description: 'Organization address (ADDR)' })
  @IsString()
  @Matches(ADDR, { message: 'must be a base58 address', context: { code: 'invalid_address' } })
  organization!: string;

  @ApiProperty({ description: 'Document address (ADDR)' })
  @IsString()
  @Matches(ADDR, { message: 'must be a base58 address', context: { code: 'invalid_address' } })
  document!: string;

  @ApiProperty({ description: 'Signer: wallet address (ADDR) or native passkey identity (P256ID)' })
  @IsString()
  @Matches(ADDR_OR_P256, { message: 'must be a base58 address or a p256 identity', context: { code: 'invalid_signer' } })
  signer!: string;

  @ApiPropertyOptional({ description: 'Acceptance session token', maxLength: 128 })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  sessionToken?: string;

  @ApiPropertyOptional({ enum: ['wallet', 'passkey', 'passkey_p256'], default: 'wallet' })
  @IsOptional()
  @IsIn(['wallet', 'passkey', 'passkey_p256'])
  signerType?: 'wallet' | 'passkey' | 'passkey_p256';
}

/** A base64url string of 1 to `max` characters. */
const Base64Url = (max: number) =>
  applyDecorators(ApiProperty({ minLength: 1, maxLength: max }), IsString(), Length(1, max), Matches(B64URL, { message: 'must be base64url' }));

/** WebAuthn assertion (spec "ASSERTION"): all four fields required, no other keys. */
export class PasskeyAssertionDto {
  @Base64Url(1366) credentialId!: string;
  @Base64Url(4096) authenticatorData!: string;
  @Base64Url(4096) clientDataJSON!: string;
  @Base64Url(1024) signature!: string;
}

export class SubmitRequest {
  @ApiProperty({ description: 'The clientBinding returned with the challenge', minLength: 20, maxLength: 64 })
  @IsString()
  @Length(20, 64)
  clientBinding!: string;

  @ApiPropertyOptional({ description: 'Ed25519 signature of the exact message (base58); wallets and legacy passkeys' })
  @IsOptional()
  @IsString()
  @Matches(SIG, { message: 'must be a base58 signature', context: { code: 'invalid_signature' } })
  signature?: string;

  @ApiPropertyOptional({ type: PasskeyAssertionDto, description: 'Passkey signers only' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PasskeyAssertionDto)
  passkeyAssertion?: PasskeyAssertionDto;
}
