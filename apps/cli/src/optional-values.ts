/**
 * Options whose value is optional (`--wait [seconds]`, `--wait-finalized [seconds]`) written before a command's
 * operand. Commander gives such an option the next word as its value whenever that word does not start with `-`, so
 * `svc verify --wait-finalized receipt.json --rpc …` would read the file name as the number of seconds. A word there
 * that is not a number is the operand instead.
 */

/**
 * Moves each word that follows one of `flags` and is neither an option nor a number in front of that flag, so that
 * the flag is read without a value (its default) and the word as the operand it is. Every other word keeps its place.
 * @param argv the process's arguments (`process.argv`, or any list of words); not changed
 * @param flags the long options with an optional value, written as on the command line (`--wait-finalized`)
 * @returns a new list of the same words
 */
export function operandsBeforeOptionalValues(argv: readonly string[], flags: readonly string[]): string[] {
  const out = [...argv];
  for (let i = 0; i < out.length - 1; i++) {
    if (out[i] === '--') break; // everything after it is an operand already
    const next = out[i + 1]!;
    if (!flags.includes(out[i]!) || next.startsWith('-') || isNumberWord(next)) continue;
    out[i + 1] = out[i]!;
    out[i] = next;
    i++; // the flag, now one further, is followed by what followed the word
  }
  return out;
}

/** Whether commander's number parsers would read the word as a number (so it is meant as the option's value). */
function isNumberWord(word: string): boolean {
  return word.trim() !== '' && Number.isFinite(Number(word));
}
