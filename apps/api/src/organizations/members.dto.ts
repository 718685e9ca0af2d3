import { ApiProperty } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';

/** Longest member label (spec §8). */
export const MEMBER_LABEL_MAX = 80;

/** `PATCH /v1/organizations/{orgId}/members/{memberAddress}`: `{label}`, required, a string of at most 80 characters or null. */
export class MemberLabelRequest {
  @ApiProperty({ type: String, nullable: true, maxLength: MEMBER_LABEL_MAX, description: 'Dashboard-only label; null clears it' })
  @ValidateBy(
    {
      name: 'isMemberLabel',
      validator: {
        validate: (v: unknown) => v === null || (typeof v === 'string' && v.length <= MEMBER_LABEL_MAX),
        defaultMessage: () => `must be a string of at most ${MEMBER_LABEL_MAX} characters, or null`,
      },
    },
    { context: { code: 'invalid_request' } },
  )
  label!: string | null;
}
