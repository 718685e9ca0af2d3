/** The benchmark's one table of figures (rendered with cli-table3). */
import Table from 'cli-table3';

/** One figure. Absent values print as `—`. */
export interface Row {
  figure: string;
  /** Operations per second (requests, acceptances, transactions, verifications, events). */
  perSecond?: number | null;
  /** The ceiling it is held against, per second, and that ceiling's row name (for the reader). */
  ceiling?: number | null;
  /** Target: at least this percent of the ceiling. */
  targetPercent?: number | null;
  p50Ms?: number | null;
  p99Ms?: number | null;
  /** Resident set size of the measured process (the service unless the figure says otherwise), MB. */
  rssMb?: number | null;
  /** Elapsed seconds, for one-off figures (start-up, rebuild, synthesis). */
  seconds?: number | null;
}

/** Column headers, in order; the smoke test reads the table by them. */
export const COLUMNS = ['figure', 'per s', 'ceiling /s', 'ratio %', 'target %', 'p50 ms', 'p99 ms', 'RSS MB', 'time s'] as const;

const DASH = '—';
const present = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);
const rate = (v: number | null | undefined) => (present(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : DASH);
const ms = (v: number | null | undefined) => (present(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(v >= 10 ? 1 : 2)) : DASH);
const fixed = (digits: number) => (v: number | null | undefined) => (present(v) ? v.toFixed(digits) : DASH);

/** Ratio of a row to its ceiling, in percent (null when either is missing). */
export function ratioPercent(row: Row): number | null {
  return present(row.perSecond) && present(row.ceiling) && row.ceiling > 0 ? (100 * row.perSecond) / row.ceiling : null;
}

/** Whether a row with a target meets it (null when it has no target or no ratio). */
export function meetsTarget(row: Row): boolean | null {
  const ratio = ratioPercent(row);
  return present(row.targetPercent) && ratio !== null ? ratio >= row.targetPercent : null;
}

/** Renders the rows; a target cell reads `≥ 25 ok` or `≥ 25 MISSED`. */
export function renderTable(rows: readonly Row[]): string {
  const table = new Table({ head: [...COLUMNS], style: { head: [], border: [] } });
  for (const row of rows) {
    const met = meetsTarget(row);
    const target = present(row.targetPercent) ? `≥ ${row.targetPercent}${met === null ? '' : met ? ' ok' : ' MISSED'}` : DASH;
    table.push([
      row.figure,
      rate(row.perSecond),
      rate(row.ceiling),
      fixed(1)(ratioPercent(row)),
      target,
      ms(row.p50Ms),
      ms(row.p99Ms),
      fixed(0)(row.rssMb),
      fixed(2)(row.seconds),
    ]);
  }
  return table.toString();
}
