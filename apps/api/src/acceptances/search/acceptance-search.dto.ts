import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { isISO8601, ValidateBy, ValidateIf } from 'class-validator';
import { AddressField, B64URL, PageSizeQuery, PatternField, StringField } from '@svc/http';

/** ISO 8601 date-time with a time zone (`Z` or `±hh:mm`), as `from`, `to` and `before` take it. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
/** ISO 8601 calendar date (extended form), taken as that day in UTC. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` is such a date-time naming a day of the calendar (not 30 February, which `Date.parse` rolls over). */
export function isIsoDateTime(value: unknown): value is string {
  return typeof value === 'string' && ISO_DATE_TIME.test(value) && isISO8601(value, { strict: true, strictSeparator: true }) && !Number.isNaN(Date.parse(value));
}

/** Whether `value` is a time bound of the search: such a date-time, or a calendar date that exists. */
export function isTimeBound(value: unknown): value is string {
  return isIsoDateTime(value) || (typeof value === 'string' && ISO_DATE.test(value) && isISO8601(value, { strict: true }));
}

/**
 * The whole Unix seconds a time bound covers: for a date-time, the instant rounded up (`first`) and down (`last`),
 * exact to nanoseconds (`Date.parse` keeps milliseconds only, so the fraction is read from the text); for a calendar
 * date, its first and last second in UTC.
 */
export function secondsCoveredBy(value: string): { first: number; last: number } {
  if (ISO_DATE.test(value)) {
    const first = Date.parse(`${value}T00:00:00Z`) / 1000;
    return { first, last: first + 86_399 };
  }
  const floor = Math.floor(Date.parse(value) / 1000);
  const fraction = /T\d{2}:\d{2}:\d{2}\.(\d+)/.exec(value)?.[1] ?? '';
  return { first: /[1-9]/.test(fraction) ? floor + 1 : floor, last: floor };
}

const DateTimeQuery = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ oneOf: [{ type: 'string', format: 'date-time' }, { type: 'string', format: 'date' }], description }),
    ValidateIf((_, v) => v !== undefined),
    ValidateBy({ name: 'isTimeBound', validator: { validate: isTimeBound, defaultMessage: () => 'must be an ISO 8601 date-time with a time zone, or a date (YYYY-MM-DD, UTC)' } }),
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

  @DateTimeQuery('Inclusive lower bound on blockTime; a date means from its first second (UTC)')
  from?: string;

  @DateTimeQuery('Inclusive upper bound on blockTime; a date means through its last second (UTC)')
  to?: string;

  @DateTimeQuery('Exclusive upper bound on blockTime: acceptances recorded strictly before this time; a date means before that day (UTC)')
  before?: string;

  @PageSizeQuery()
  limit?: string;

  @PatternField(B64URL, 1, 160, 'must be 1 to 160 base64url characters: the nextCursor of the previous page', 'invalid_cursor', { presence: 'optional', description: 'nextCursor of the previous page, unchanged' })
  cursor?: string;
}
