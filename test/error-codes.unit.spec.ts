/**
 * Every error code a docstring promises is real (spec §7): each code named in a `@throws DomainError …` of the
 * sources under apps/, libs/ and projections/ is a key of `ERROR_STATUS`, the HTTP status written next to it (if
 * any) is the table's, and some source code actually produces it (`DomainError('<code>'` or `code: '<code>'`).
 *
 * How codes are read from a `@throws DomainError` block (up to the next `@tag` line or the comment's end):
 * - any word that is a key of `ERROR_STATUS`, wherever it stands;
 * - any other snake_case word outside parentheses (explanations go in parentheses: `forbidden (403: why)`).
 * The status is the number that opens the parenthesis right after the code, or after the last code of a group
 * joined by ` / ` (`invalid_request / invalid_signer (400)`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ERROR_STATUS } from '@svc/domain';

const ROOT = join(__dirname, '..');
const SOURCE_DIRS = ['apps', 'libs', 'projections'];

interface NamedCode {
  /** `path:line` of the code, relative to the repository. */
  where: string;
  code: string;
  /** The HTTP status written next to the code, or null. */
  status: number | null;
}

interface SourceFile {
  path: string;
  text: string;
}

const isKnownCode = (word: string): word is keyof typeof ERROR_STATUS => Object.hasOwn(ERROR_STATUS, word);

/** The non-spec TypeScript sources under `dirs`. */
function sources(dirs: readonly string[]): SourceFile[] {
  const files: SourceFile[] = [];
  for (const dir of dirs) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })) {
      if (!entry.endsWith('.ts') || entry.endsWith('.d.ts') || entry.endsWith('.spec.ts') || /(^|[\\/])(node_modules|dist)[\\/]/.test(entry)) continue;
      const path = join(dir, entry);
      files.push({ path, text: readFileSync(join(ROOT, path), 'utf8') });
    }
  }
  return files;
}

const lineOf = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

/** Parenthesis depth before each character of `block`. */
function depths(block: string): number[] {
  const out: number[] = [];
  let depth = 0;
  for (const ch of block) {
    out.push(depth);
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
  }
  return out;
}

/** The codes named by the `@throws DomainError` blocks of one file. */
function namedCodes(file: SourceFile): NamedCode[] {
  const found: NamedCode[] = [];
  for (const tag of file.text.matchAll(/@throws\s+\{?DomainError\}?/g)) {
    const start = tag.index + tag[0].length;
    const rest = file.text.slice(start);
    const end = rest.search(/\n\s*\*\s*@|\*\//);
    const block = end < 0 ? rest : rest.slice(0, end);
    const depth = depths(block);
    for (const word of block.matchAll(/(?<![\w$.])[a-z][a-z0-9_]*(?![\w$])/g)) {
      const code = word[0];
      if (!isKnownCode(code) && !(code.includes('_') && depth[word.index] === 0)) continue;
      const after = block.slice(word.index + code.length);
      const status = /^(?:[\s*]*\/[\s*]*[a-z][a-z0-9_]*)*[\s*]*\((\d{3})\b/.exec(after);
      found.push({ where: `${file.path}:${lineOf(file.text, start + word.index)}`, code, status: status ? Number(status[1]) : null });
    }
  }
  return found;
}

/** The codes some source produces: `DomainError('<code>'` (with or without `new`) or `code: '<code>'`. */
function producedCodes(files: readonly SourceFile[]): Set<string> {
  const produced = new Set<string>();
  for (const { text } of files) {
    for (const m of text.matchAll(/\bDomainError\(\s*['"`]([a-z][a-z0-9_]*)['"`]|\bcode:\s*['"`]([a-z][a-z0-9_]*)['"`]/g)) produced.add(m[1] ?? m[2]!);
  }
  return produced;
}

describe('@throws DomainError codes in the sources', () => {
  const files = sources(SOURCE_DIRS);
  const named = files.flatMap(namedCodes);

  it('finds the documented codes (the scan is not empty)', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(named.length).toBeGreaterThan(30);
    expect(named.map((n) => n.code)).toEqual(expect.arrayContaining(['not_found', 'forbidden', 'chain_state', 'already_accepted']));
  });

  it('every named code is in ERROR_STATUS, with the status written next to it equal to the table’s', () => {
    const offenders = named.flatMap(({ where, code, status }) => {
      if (!isKnownCode(code)) return [`${where}: ${code} is not an error code of ERROR_STATUS (libs/domain/src/errors.ts)`];
      if (status !== null && status !== ERROR_STATUS[code]) return [`${where}: ${code} is written (${status}), ERROR_STATUS says ${ERROR_STATUS[code]}`];
      return [];
    });
    expect(offenders).toEqual([]);
  });

  it('every named code is produced by some source (DomainError(\'<code>\' or code: \'<code>\')', () => {
    const produced = producedCodes(files);
    const firstNamed = new Map<string, string>();
    for (const { code, where } of named) if (isKnownCode(code) && !firstNamed.has(code)) firstNamed.set(code, where);
    const offenders = [...firstNamed].filter(([code]) => !produced.has(code)).map(([code, where]) => `${where}: ${code} is promised but no source throws it`);
    expect(offenders).toEqual([]);
  });
});

describe('reading @throws blocks', () => {
  const read = (text: string) => namedCodes({ path: 'x.ts', text }).map(({ code, status, where }) => ({ code, status, line: where.split(':')[1] }));

  it('reads codes, shared statuses of a group, explanations in parentheses and continuation lines', () => {
    const text = [
      '/**',
      ' * Does a thing.',
      ' * @throws DomainError invalid_request / invalid_signer (400), not_found (404: the organization (or its',
      ' *   document) is not visible), forbidden when the site is not allowed; draft_closed',
      ' * @throws Error on anything else, say internal_error_x',
      ' */',
    ].join('\n');
    expect(read(text)).toEqual([
      { code: 'invalid_request', status: 400, line: '3' },
      { code: 'invalid_signer', status: 400, line: '3' },
      { code: 'not_found', status: 404, line: '3' },
      { code: 'forbidden', status: null, line: '4' },
      { code: 'draft_closed', status: null, line: '4' },
    ]);
  });

  it('reads a one-line docstring and a code in backticks inside an explanation', () => {
    expect(read('/** Idempotent. @throws DomainError not_found (404) for a session that never started. */')).toEqual([{ code: 'not_found', status: 404, line: '1' }]);
    expect(read('/** @throws DomainError with `code` (400; default `invalid_request`). */')).toEqual([{ code: 'invalid_request', status: null, line: '1' }]);
  });

  it('reads a made-up code and a wrong status, which the checks above then report', () => {
    expect(read('/** @throws DomainError bogus_code (418), chain_state (400) */')).toEqual([
      { code: 'bogus_code', status: 418, line: '1' },
      { code: 'chain_state', status: 400, line: '1' },
    ]);
  });
});
