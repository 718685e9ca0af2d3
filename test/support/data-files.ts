import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

/** Every file under `dir`, at any depth (a data directory's event log, read store, ledger journal, keys…). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}
