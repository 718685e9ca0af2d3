import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, ValidateIf, ValidateNested } from 'class-validator';
import { AddressField, B64URL, EnumField, PatternField, SignatureField, SignerField, StringField } from '@svc/http';

/** `POST /v1/acceptance/challenges` (spec §4.4). */
export class ChallengeRequest {
  @AddressField({ description: 'Organization address (ADDR)' })
  organization!: string;

  @AddressField({ description: 'Document address (ADDR)' })
  document!: string;

  @SignerField({ description: 'Signer: wallet address (ADDR) or native passkey identity (P256ID)' })
  signer!: string;

  @StringField(0, 128, { presence: 'optional', description: 'Acceptance session token' })
  sessionToken?: string;

  @EnumField(['wallet', 'passkey', 'passkey_p256'], { presence: 'optional', description: 'Default `wallet`' })
  signerType?: 'wallet' | 'passkey' | 'passkey_p256';
}

/** A base64url string of 1 to `max` characters (spec "B64URL"). */
const Base64Url = (max: number) => PatternField(B64URL, 1, max, `must be 1 to ${max} base64url characters`);

/** WebAuthn assertion (spec "ASSERTION"): all four fields required, no other keys. */
export class PasskeyAssertionDto {
  @Base64Url(1366) credentialId!: string;
  @Base64Url(4096) authenticatorData!: string;
  @Base64Url(4096) clientDataJSON!: string;
  @Base64Url(1024) signature!: string;
}

/** An optional nested ASSERTION object. */
const AssertionField = () =>
  applyDecorators(
    ApiPropertyOptional({ type: PasskeyAssertionDto, description: 'Passkey signers only' }),
    ValidateIf((_, v) => v !== undefined),
    IsObject({ message: 'must be an object' }),
    ValidateNested(),
    Type(() => PasskeyAssertionDto),
  );

/** `POST /v1/acceptance/challenges/{challengeId}/submit` (spec §4.4). */
export class SubmitRequest {
  @StringField(20, 64, { description: 'The clientBinding returned with the challenge' })
  clientBinding!: string;

  @SignatureField({ presence: 'optional', description: 'Ed25519 signature of the exact message (base58); wallets and legacy passkeys' })
  signature?: string;

  @AssertionField()
  passkeyAssertion?: PasskeyAssertionDto;
}
