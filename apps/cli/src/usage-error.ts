/**
 * A command line the CLI cannot run: an argument of the wrong form, a file named on it that cannot be read or used,
 * a projection name it does not know. Commands exit 2 for it (as grep and diff do), never 1, which `svc verify`
 * gives for a verdict other than VALID and the other commands for a refusal of the service or the ledger.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
