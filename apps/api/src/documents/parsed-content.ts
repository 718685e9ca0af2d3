import MarkdownIt from 'markdown-it';

/**
 * Structured blocks of a Markdown document (`GET /v1/public/content/{hash}/parsed`).
 *
 * Block shapes (inline formatting is flattened to plain text; links keep their text):
 * - `{type: "heading", level: 1..6, text}`
 * - `{type: "paragraph", text}`
 * - `{type: "list", ordered: boolean, start: number|null, items: Block[][]}` (each item is a list of blocks)
 * - `{type: "blockquote", blocks: Block[]}`
 * - `{type: "code", lang: string|null, text}`
 * - `{type: "table", header: string[], rows: string[][]}`
 * - `{type: "rule"}`
 * - `{type: "html", text}` (raw HTML blocks are returned as text, never rendered)
 */
export type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'list'; ordered: boolean; start: number | null; items: Block[][] }
  | { type: 'blockquote'; blocks: Block[] }
  | { type: 'code'; lang: string | null; text: string }
  | { type: 'table'; header: string[]; rows: string[][] }
  | { type: 'rule' }
  | { type: 'html'; text: string };

/**
 * Block nesting markdown-it follows (each list level counts two: the list and its item; a quote one). Past it the
 * parser drops the rest of the document, so a source that reaches it is answered losslessly as one code block.
 */
export const MAX_BLOCK_NESTING = 200;

const md = new MarkdownIt({ html: true, linkify: false, maxNesting: MAX_BLOCK_NESTING });
type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];
/** Block tokens whose content markdown-it parses as blocks again, one level deeper. */
const CONTAINERS = new Set(['blockquote_open', 'bullet_list_open', 'ordered_list_open', 'list_item_open']);

function inlineText(token: Token | undefined): string {
  if (!token) return '';
  if (!token.children) return token.content;
  return token.children
    .map((c: Token) => {
      if (c.type === 'softbreak' || c.type === 'hardbreak') return '\n';
      if (c.type === 'image') return c.content;
      return c.content;
    })
    .join('');
}

/**
 * Parses Markdown into blocks with markdown-it (CommonMark + tables). A source whose blocks nest
 * {@link MAX_BLOCK_NESTING} levels deep, where the parser would silently drop the text past that depth, is one
 * `{type: "code", lang: null, text: source}` block: every character stays in the answer.
 */
export function parseMarkdownBlocks(source: string): Block[] {
  const tokens = md.parse(source, {});
  // A container opened at the last level parses its content at the limit, where the parser skips to the end.
  if (tokens.some((t) => CONTAINERS.has(t.type) && t.level >= MAX_BLOCK_NESTING - 1)) return [{ type: 'code', lang: null, text: source }];
  let i = 0;

  function parseUntil(closeType: string | null): Block[] {
    const blocks: Block[] = [];
    while (i < tokens.length) {
      const t = tokens[i];
      if (closeType && t.type === closeType) {
        i++;
        return blocks;
      }
      switch (t.type) {
        case 'heading_open': {
          const level = Number(t.tag.slice(1));
          blocks.push({ type: 'heading', level, text: inlineText(tokens[i + 1]) });
          i += 3;
          break;
        }
        case 'paragraph_open': {
          blocks.push({ type: 'paragraph', text: inlineText(tokens[i + 1]) });
          i += 3;
          break;
        }
        case 'bullet_list_open':
        case 'ordered_list_open': {
          const ordered = t.type === 'ordered_list_open';
          const start = ordered ? Number(t.attrGet('start') ?? 1) : null;
          const close = ordered ? 'ordered_list_close' : 'bullet_list_close';
          i++;
          const items: Block[][] = [];
          while (i < tokens.length && tokens[i].type !== close) {
            if (tokens[i].type === 'list_item_open') {
              i++;
              items.push(parseUntil('list_item_close'));
            } else i++;
          }
          i++;
          blocks.push({ type: 'list', ordered, start, items });
          break;
        }
        case 'blockquote_open':
          i++;
          blocks.push({ type: 'blockquote', blocks: parseUntil('blockquote_close') });
          break;
        case 'fence':
        case 'code_block':
          blocks.push({ type: 'code', lang: t.info.trim() || null, text: t.content });
          i++;
          break;
        case 'hr':
          blocks.push({ type: 'rule' });
          i++;
          break;
        case 'html_block':
          blocks.push({ type: 'html', text: t.content });
          i++;
          break;
        case 'table_open': {
          i++;
          const header: string[] = [];
          const rows: string[][] = [];
          let row: string[] | null = null;
          let inHead = false;
          while (i < tokens.length && tokens[i].type !== 'table_close') {
            const c = tokens[i];
            if (c.type === 'thead_open') inHead = true;
            else if (c.type === 'thead_close') inHead = false;
            else if (c.type === 'tr_open') row = [];
            else if (c.type === 'tr_close' && row) {
              if (inHead) header.push(...row);
              else rows.push(row);
              row = null;
            } else if ((c.type === 'th_open' || c.type === 'td_open') && row) row.push(inlineText(tokens[i + 1]));
            i++;
          }
          i++;
          blocks.push({ type: 'table', header, rows });
          break;
        }
        default:
          i++;
      }
    }
    return blocks;
  }

  return parseUntil(null);
}
