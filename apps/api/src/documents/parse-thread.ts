/**
 * The worker side of {@link ParsedContent} (parsed-content.service.ts): parses one Markdown source into the blocks of
 * `GET /v1/public/content/{hash}/parsed`, as JSON text, off the service's event loop.
 */
import { parseMarkdownBlocks, type Block } from './parsed-content';

/**
 * Most characters of blocks JSON per character of source (plus a fixed allowance): a source whose structure would
 * blow its answer up past this (deeply nested blocks repeat their wrappers for every paragraph) is answered as one
 * code block holding the whole text instead, so an answer stays within a few times its source.
 */
export const MAX_ANSWER_RATIO = 4;
const ANSWER_ALLOWANCE = 1024 * 1024;

/** `source` (Markdown, at most 2,000,000 characters) → the JSON text of its blocks. */
export function parseBlocksJson(source: string): string {
  const json = JSON.stringify(parseMarkdownBlocks(source));
  if (json.length <= MAX_ANSWER_RATIO * source.length + ANSWER_ALLOWANCE) return json;
  const whole: Block[] = [{ type: 'code', lang: null, text: source }];
  return JSON.stringify(whole);
}
