import { SignatureField, StringField, WalletAddressField } from '@svc/http';

/** `POST /v1/auth/challenge` (spec §4.10). */
export class SignInChallengeRequest {
  @WalletAddressField({ description: 'Wallet address (base58, 32 bytes; an Ed25519 key that can sign)' })
  address!: string;
}

/** `POST /v1/auth/verify` (spec §4.10): all fields required. */
export class SignInVerifyRequest {
  @WalletAddressField({ description: 'Wallet address (base58, 32 bytes; an Ed25519 key that can sign)' })
  address!: string;

  @StringField(0, 4096, { description: 'The exact sign-in message returned by /v1/auth/challenge' })
  signedMessage!: string;

  @SignatureField({ description: 'Ed25519 signature of the message (base58, 64 bytes)' })
  signature!: string;
}
