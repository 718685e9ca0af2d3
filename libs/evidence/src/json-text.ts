import { visit } from 'jsonc-parser';

/** Thrown by {@link parseJsonText}: the text is not JSON (RFC 8259), or an object in it repeats a member name. */
export class JsonTextError extends Error {
  override readonly name = 'JsonTextError';
}

/**
 * Parses JSON text (RFC 8259) and refuses an object that names a member twice, which RFC 8259 §4 leaves to the
 * parser (`JSON.parse` keeps the last copy silently) and which I-JSON (RFC 7493 §2.3) and canonical JSON
 * (RFC 8785 §3.1) forbid. Evidence must read the same in every parser: a receipt with a second `documentText`
 * would show one text to a reader that keeps the first copy and another to one that keeps the last.
 *
 * Names are compared after unescaping (`"a"` and `"\u0061"` are the same name).
 *
 * @param text JSON text
 * @returns the parsed value, as `JSON.parse` gives it
 * @throws JsonTextError `is not valid JSON`, or `repeats the key "<name>" in <path>` (path `$` for the top object,
 *   `$.batch`, `$.proof[2]`…: the first repetition found in document order)
 */
export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JsonTextError(`is not valid JSON (${(error as Error).message})`);
  }
  // The grammar is JSON.parse's; the scan below only looks for repeated names in text already known to be JSON.
  const open: Set<string>[] = [];
  let repeated: string | null = null;
  visit(text, {
    onObjectBegin: () => {
      open.push(new Set());
    },
    onObjectEnd: () => {
      open.pop();
    },
    onObjectProperty: (name, _offset, _length, _line, _column, pathOf) => {
      const names = open[open.length - 1]!;
      if (!names.has(name)) names.add(name);
      else repeated ??= `repeats the key ${JSON.stringify(name)} in ${jsonPath(pathOf())}`;
    },
  });
  if (repeated !== null) throw new JsonTextError(repeated);
  return value;
}

function jsonPath(segments: readonly (string | number)[]): string {
  return segments.reduce<string>((path, s) => (typeof s === 'number' ? `${path}[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `${path}.${s}` : `${path}[${JSON.stringify(s)}]`), '$');
}
