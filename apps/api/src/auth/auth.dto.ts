import { AddressField, SignatureField, StringField } from '@svc/http';

/** `POST /v1/auth/challenge` (spec §4.10). */
export class SignInChallengeRequest {
  @AddressField({ description: 'Wallet address (base58, 32 bytes)' })
  address!: string;
}

/** `POST /v1/auth/verify` (spec §4.10): all fields required. */
export class SignInVerifyRequest {
  @AddressField({ description: 'Wallet address (base58, 32 bytes)' })
  address!: string;

  @StringField(0, 4096, { description: 'The exact sign-in message returned by /v1/auth/challenge' })
  signedMessage!: string;

  @SignatureField({ description: 'Ed25519 signature of the message (base58, 64 bytes)' })
  signature!: string;
}
