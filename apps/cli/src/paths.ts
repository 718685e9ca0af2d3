import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** The project's root: the nearest folder above this file that holds `package.json` and `apps/`. */
export function projectRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'apps'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the project root');
    dir = parent;
  }
}

/** Real documents (CC0) shipped for the demo and the tests. */
export function documentsDir(): string {
  return path.join(projectRoot(), 'apps', 'cli', 'assets', 'documents');
}

/** Compiled entry points. */
export const apiMain = () => path.join(projectRoot(), 'dist', 'apps', 'api', 'src', 'main.js');
export const cliMain = () => path.join(projectRoot(), 'dist', 'apps', 'cli', 'src', 'main.js');
