/**
 * The rule that ties an acceptance to time (docs/protocol.md §9, check `message.validity-window`): the transaction
 * that records the acceptance (its own, or its batch's anchor) must land at a block time between the message's
 * `issued-at` and `expires-at`, give or take {@link CLOCK_TOLERANCE_SECONDS}. The verifier judges receipts by it, and
 * the service records an acceptance as relayed only when its landing passes it, so that an acceptance the service
 * reports is never one whose receipt fails.
 */
import { parseAcceptanceMessage } from './acceptance-message';
import { isoToUnixSeconds } from './validation';

/** Allowed difference between block times and the times written in messages and receipts, in seconds. */
export const CLOCK_TOLERANCE_SECONDS = 120;

/** A message's validity window (ISO 8601 UTC, as written in the message). */
export interface ValidityWindow {
  issuedAt: string;
  expiresAt: string;
}

/**
 * Where a block time falls against a message's window, tolerance included.
 * @param blockTime Unix seconds of the landing block, or null when the ledger does not know it.
 * @returns `within`, `before` (earlier than `issued-at` minus the tolerance), `after` (later than `expires-at` plus
 *   the tolerance), or `unknown` for a null block time.
 */
export function landingAgainstWindow(window: ValidityWindow, blockTime: number | null): 'within' | 'before' | 'after' | 'unknown' {
  if (blockTime === null) return 'unknown';
  if (blockTime < isoToUnixSeconds(window.issuedAt) - CLOCK_TOLERANCE_SECONDS) return 'before';
  if (blockTime > isoToUnixSeconds(window.expiresAt) + CLOCK_TOLERANCE_SECONDS) return 'after';
  return 'within';
}

/**
 * Unix seconds after which no landing can pass the rule any more (`expires-at` plus the tolerance): a transaction that
 * has not landed by then records an acceptance whose receipt would fail.
 */
export function lastValidLandingTime(window: ValidityWindow): number {
  return isoToUnixSeconds(window.expiresAt) + CLOCK_TOLERANCE_SECONDS;
}

/**
 * The validity window written in an acceptance message.
 * @throws MessageFormatError when the text is not a byte-exact acceptance message (docs/protocol.md §4.1).
 */
export function validityWindowOf(message: string): ValidityWindow {
  const { issuedAt, expiresAt } = parseAcceptanceMessage(message);
  return { issuedAt, expiresAt };
}
