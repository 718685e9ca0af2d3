/**
 * Structured blocks of published Markdown (`GET /v1/public/content/{hash}/parsed`, docs/api.md "Documents"): every
 * character of the text reaches the answer, however deeply its blocks nest.
 */
import { MAX_BLOCK_NESTING, parseMarkdownBlocks, type Block } from './parsed-content';
import { MAX_ANSWER_RATIO, parseBlocksJson } from './parse-thread';

/** Every text the blocks carry, in order. */
function texts(blocks: Block[]): string[] {
  return blocks.flatMap((b): string[] => {
    switch (b.type) {
      case 'list':
        return b.items.flatMap(texts);
      case 'blockquote':
        return texts(b.blocks);
      case 'table':
        return [...b.header, ...b.rows.flat()];
      case 'rule':
        return [];
      default:
        return [b.text];
    }
  });
}

const nestedList = (depth: number) => Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');

describe('parseMarkdownBlocks', () => {
  it('gives headings, paragraphs, lists, quotes, code and tables their shapes', () => {
    const blocks = parseMarkdownBlocks('# Terms\n\nYou **agree**.\n\n1. one\n2. two\n\n> quoted\n\n```txt\ncode\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n');
    expect(blocks).toEqual([
      { type: 'heading', level: 1, text: 'Terms' },
      { type: 'paragraph', text: 'You agree.' },
      { type: 'list', ordered: true, start: 1, items: [[{ type: 'paragraph', text: 'one' }], [{ type: 'paragraph', text: 'two' }]] },
      { type: 'blockquote', blocks: [{ type: 'paragraph', text: 'quoted' }] },
      { type: 'code', lang: 'txt', text: 'code\n' },
      { type: 'table', header: ['a', 'b'], rows: [['1', '2']] },
      { type: 'rule' },
    ]);
  });

  it('keeps a list nested 60 levels and the clause after it (the parser\'s default limit lost both)', () => {
    const blocks = parseMarkdownBlocks(`# Terms\n\n${nestedList(60)}\n\nClause 2: after the list.\n`);
    const all = texts(blocks);
    expect(all).toContain('level 59');
    expect(all[all.length - 1]).toBe('Clause 2: after the list.');
    expect(blocks).toHaveLength(3);
  });

  it('answers a source nested past the limit as one code block holding all of it, rather than dropping text', () => {
    for (const source of [`${'>'.repeat(MAX_BLOCK_NESTING + 1)} a deeply quoted remark\n\nClause 2.\n`, `${nestedList(MAX_BLOCK_NESTING)}\n\nAFTER-LIST\n`]) {
      expect(parseMarkdownBlocks(source)).toEqual([{ type: 'code', lang: null, text: source }]);
    }
  });

  it('keeps a quote nested just under the limit structured, with its text', () => {
    const source = `${'>'.repeat(MAX_BLOCK_NESTING - 1)} deep\n\nafter\n`;
    const blocks = parseMarkdownBlocks(source);
    expect(texts(blocks)).toEqual(['deep', 'after']);
    expect(blocks[0]!.type).toBe('blockquote');
  });

  it('answers a source whose blocks would blow its answer up as one code block, keeping answers within a few times their source', () => {
    // Paragraphs each quoted 150 deep: every one repeats 150 wrappers.
    const source = Array.from({ length: 2_000 }, (_, i) => `${'>'.repeat(150)} q${i}`).join('\n\n');
    const json = parseBlocksJson(source);
    expect(JSON.parse(json)).toEqual([{ type: 'code', lang: null, text: source }]);
    expect(json.length).toBeLessThan(MAX_ANSWER_RATIO * source.length);
    // An ordinary document keeps its structure.
    const plain = '# Terms\n\n' + Array.from({ length: 2_000 }, (_, i) => `- clause ${i}`).join('\n');
    expect(JSON.parse(parseBlocksJson(plain))).toEqual(parseMarkdownBlocks(plain));
  });
});
