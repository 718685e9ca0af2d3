/** ISO 8601 UTC for Unix seconds, or null. */
export function isoFromUnix(seconds: number | null): string | null {
  return seconds === null ? null : new Date(seconds * 1000).toISOString();
}
