import { ApiProperty } from '@nestjs/swagger';
import { API_KEY_SCOPES } from './api-keys.dto';

/** An API key as the dashboard shows it (docs/api.md "API keys"); never the key itself. */
export class ApiKeyResponse {
  @ApiProperty({ type: String, format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, minLength: 1, maxLength: 80 }) name!: string;
  @ApiProperty({ type: [String], enum: API_KEY_SCOPES }) scopes!: string[];
  @ApiProperty({ type: String, description: 'The first 13 characters of the key' }) prefix!: string;
  @ApiProperty({ enum: ['active', 'revoked', 'expired'] }) status!: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, description: 'Wallet that created it' }) createdBy!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revokedAt!: string | null;
}

export class ApiKeyListResponse {
  @ApiProperty({ type: [ApiKeyResponse] }) apiKeys!: ApiKeyResponse[];
}

export class ApiKeyOneResponse {
  @ApiProperty({ type: ApiKeyResponse }) apiKey!: ApiKeyResponse;
}

export class CreatedApiKeyResponse extends ApiKeyOneResponse {
  @ApiProperty({ type: String, nullable: true, pattern: '^svc_(test|live)_[A-Za-z0-9_-]{43}$', description: 'The key, shown this once; null in an idempotent replay, and when a retry with the Idempotency-Key of a request that recorded the key and failed before answering finds it (the key is never stored)' }) key!: string | null;
}
