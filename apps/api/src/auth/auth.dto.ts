import { ApiProperty, PickType } from '@nestjs/swagger';
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

/** `POST /v1/auth/reauthenticate` (docs/api.md "Re-authentication"): the session's wallet signs a fresh message. */
export class ReauthenticateRequest {
  @StringField(1, 4096, { description: 'The message returned by /v1/auth/reauthenticate/challenge, as the wallet signed it' })
  signedMessage!: string;

  @SignatureField({ description: 'Ed25519 signature of the message by the session wallet (base58, 64 bytes)' })
  signature!: string;
}

/** A message for the wallet to sign: `POST /v1/auth/challenge` and `/v1/auth/reauthenticate/challenge`. */
export class SignInChallengeResponse {
  @ApiProperty({ description: 'The exact text to sign (Sign-In-With-Solana layout, docs/protocol.md §10)' })
  message!: string;
  @ApiProperty({ description: 'Single-use nonce, 32 hex characters', pattern: '^[0-9a-f]{32}$' })
  nonce!: string;
  @ApiProperty({ format: 'date-time' })
  issuedAt!: string;
  @ApiProperty({ format: 'date-time', description: '10 minutes after issuedAt' })
  expiresAt!: string;
}

/** The signed-in wallet and its windows: `GET /v1/auth/me`, `POST /v1/auth/reauthenticate`. */
export class SessionResponse {
  @ApiProperty({ description: 'Wallet address of the session' })
  address!: string;
  @ApiProperty({ format: 'date-time', description: 'Time of the last wallet signature (sign-in or re-authentication)' })
  signedAt!: string;
  @ApiProperty({ format: 'date-time', description: 'End of the session' })
  expiresAt!: string;
  @ApiProperty({ format: 'date-time', description: 'End of the fresh-signature window: signedAt + 10 minutes (spec §5 rule 3)' })
  freshUntil!: string;
}

/** `POST /v1/auth/verify`: the new session; the session token itself is only in the HttpOnly cookie. */
export class SignInResponse extends PickType(SessionResponse, ['address', 'signedAt', 'expiresAt'] as const) {
  @ApiProperty({ description: 'Value of cookie svc_csrf, to send in header x-csrf-token on cookie writes' })
  csrfToken!: string;
}

/** `POST /v1/auth/logout` */
export class SignedOutResponse {
  @ApiProperty({ enum: [true] })
  signedOut!: true;
}
