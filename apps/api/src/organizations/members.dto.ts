import { ApiProperty } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';
import { isText } from '@svc/evidence';

/** Longest member label (spec §8). */
export const MEMBER_LABEL_MAX = 80;

/**
 * `PATCH /v1/organizations/{orgId}/members/{memberAddress}`: `{label}`, required, display text of at most 80 characters
 * (code points; no control characters or unpaired surrogates) or null.
 */
export class MemberLabelRequest {
  @ApiProperty({ type: String, nullable: true, maxLength: MEMBER_LABEL_MAX, description: 'Dashboard-only label; null clears it' })
  @ValidateBy(
    {
      name: 'isMemberLabel',
      validator: {
        validate: (v: unknown) => v === null || isText(v, 0, MEMBER_LABEL_MAX),
        defaultMessage: () => `must be at most ${MEMBER_LABEL_MAX} characters without control characters (U+0000–U+001F, U+007F–U+009F) or unpaired surrogates, or null`,
      },
    },
    { context: { code: 'invalid_request' } },
  )
  label!: string | null;
}
