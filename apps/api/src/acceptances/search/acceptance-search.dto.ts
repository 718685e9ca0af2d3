import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { isISO8601, ValidateBy, ValidateIf } from 'class-validator';
import { AddressField, B64URL, PageSizeQuery, PatternField, StringField } from '@svc/http';

/** ISO 8601 date-time with a time zone (`Z` or `±hh:mm`), as `from`, `to` and `before` take it. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Whether `value` is such a date-time naming a day of the calendar (not 30 February, which `Date.parse` rolls over). */
export function isIsoDateTime(value: unknown): value is string {
  return typeof value === 'string' && ISO_DATE_TIME.test(value) && isISO8601(value, { strict: true, strictSeparator: true }) && !Number.isNaN(Date.parse(value));
}

/**
 * The whole Unix seconds of a date-time `isIsoDateTime` accepted, rounded down, and whether it lies past them (a
 * fraction with any non-zero digit, to nanoseconds: `Date.parse` keeps milliseconds only).
 */
export function unixSecondsOf(value: string): { seconds: number; pastSecond: boolean } {
  const fraction = /T\d{2}:\d{2}:\d{2}\.(\d+)/.exec(value)?.[1] ?? '';
  return { seconds: Math.floor(Date.parse(value) / 1000), pastSecond: /[1-9]/.test(fraction) };
}

const DateTimeQuery = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: String, format: 'date-time', description }),
    ValidateIf((_, v) => v !== undefined),
    ValidateBy({ name: 'isIsoDateTime', validator: { validate: isIsoDateTime, defaultMessage: () => 'must be an ISO 8601 date-time with a time zone' } }),
  );

/**
 * Query of acceptance search (spec §4.5), shared by `GET /v1/acceptances` and `GET /v1/organizations/{orgId}/acceptances`;
 * no other parameters. Meanings: docs/api.md "Acceptance search".
 */
export class AcceptanceSearchQuery {
  @AddressField({ presence: 'optional', description: 'Document address' })
  document?: string;

  @AddressField({ presence: 'optional', description: 'Version address' })
  version?: string;

  @AddressField({ presence: 'optional', description: 'Signer address' })
  signer?: string;

  @StringField(1, 128, { presence: 'optional', description: "The organization's reference of its user, from the acceptance session" })
  externalUserRef?: string;

  @DateTimeQuery('Inclusive lower bound on blockTime')
  from?: string;

  @DateTimeQuery('Inclusive upper bound on blockTime')
  to?: string;

  @DateTimeQuery('Exclusive upper bound on blockTime: acceptances recorded strictly before this time')
  before?: string;

  @PageSizeQuery()
  limit?: string;

  @PatternField(B64URL, 1, 160, 'must be 1 to 160 base64url characters: the nextCursor of the previous page', 'invalid_cursor', { presence: 'optional', description: 'nextCursor of the previous page, unchanged' })
  cursor?: string;
}
