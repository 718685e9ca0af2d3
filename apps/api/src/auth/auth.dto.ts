import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { ADDR, SIG } from '@svc/http';

export class SignInChallengeRequest {
  @ApiProperty({ description: 'Wallet address (base58)', example: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin' })
  @IsString()
  @Matches(ADDR, { message: 'must be a base58 address', context: { code: 'invalid_address' } })
  address!: string;
}

export class SignInVerifyRequest {
  @ApiProperty({ description: 'Wallet address (base58)' })
  @IsString()
  @Matches(ADDR, { message: 'must be a base58 address', context: { code: 'invalid_address' } })
  address!: string;

  @ApiProperty({ description: 'The exact sign-in message returned by /v1/auth/challenge', maxLength: 4096 })
  @IsString()
  @MaxLength(4096)
  signedMessage!: string;

  @ApiProperty({ description: 'Ed25519 signature of the message (base58, 64 bytes)' })
  @IsString()
  @Matches(SIG, { message: 'must be a base58 signature', context: { code: 'invalid_signature' } })
  signature!: string;
}
