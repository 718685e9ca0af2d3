import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Matches, MaxLength, Min, ValidateIf } from 'class-validator';
import { ADDR, SIG } from '@svc/http';

/** Optional effective date: Unix seconds > 0, or null (effective on publication); else 400 invalid_effective_date. */
const EffectiveAt = () =>
  applyDecorators(
    ApiPropertyOptional({ description: 'Unix seconds; null: effective on publication', nullable: true, type: Number }),
    IsOptional(),
    ValidateIf((_, v) => v !== null),
    IsInt({ message: 'must be an integer (Unix seconds) or null', context: { code: 'invalid_effective_date' } }),
    Min(1, { message: 'must be positive', context: { code: 'invalid_effective_date' } }),
  );

export class AddressRequest {
  @ApiProperty({ description: 'On-chain address (base58)' })
  @IsString()
  @Matches(ADDR, { message: 'must be a base58 address', context: { code: 'invalid_address' } })
  address!: string;
}

export class CreateDraftRequest {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  title!: string;

  @ApiProperty({ minLength: 1, maxLength: 16 })
  @IsString()
  @Length(1, 16)
  versionLabel!: string;

  @EffectiveAt()
  effectiveAt?: number | null;

  @ApiProperty({ description: 'Markdown text of the version', minLength: 1, maxLength: 2_000_000 })
  @IsString()
  @Length(1, 2_000_000)
  source!: string;

  @ApiPropertyOptional({ maxLength: 4000, nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(4000)
  changeSummary?: string | null;
}

export class UpdateDraftRequest {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  title?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 16 })
  @IsOptional()
  @IsString()
  @Length(1, 16)
  versionLabel?: string;

  @EffectiveAt()
  effectiveAt?: number | null;

  @ApiPropertyOptional({ minLength: 1, maxLength: 2_000_000 })
  @IsOptional()
  @IsString()
  @Length(1, 2_000_000)
  source?: string;

  @ApiPropertyOptional({ maxLength: 4000, nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(4000)
  changeSummary?: string | null;
}

export class ConfirmPublicationRequest {
  @ApiProperty({ description: 'Signature of the publication transaction (base58)' })
  @IsString()
  @Matches(SIG, { message: 'must be a base58 transaction signature', context: { code: 'invalid_signature' } })
  signature!: string;
}
