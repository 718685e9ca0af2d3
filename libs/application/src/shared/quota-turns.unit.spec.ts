import { QuotaTurns } from './quota-turns';

describe('QuotaTurns', () => {
  it('runs the decisions of one key one after another, in the order asked, whatever each ends with', async () => {
    const turns = new QuotaTurns();
    let count = 0;
    const seen: number[] = [];
    // Each decision reads the count, yields, then adds one: run together they would all read 0.
    const decide = (fail: boolean) =>
      turns.take('org-1', async () => {
        const read = count;
        await new Promise((r) => setImmediate(r));
        seen.push(read);
        if (fail) throw new Error(`refused at ${read}`);
        count = read + 1;
        return read;
      });
    const outcomes = await Promise.allSettled([decide(false), decide(true), decide(false), decide(false)]);
    expect(seen).toEqual([0, 1, 1, 2]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([0, 'refused at 1', 1, 2]);
  });

  it('keeps keys apart: another key does not wait', async () => {
    const turns = new QuotaTurns();
    let release!: () => void;
    const held = turns.take('org-1', () => new Promise<void>((r) => (release = r)));
    expect(await turns.take('org-2', async () => 'not held')).toBe('not held');
    release();
    await held;
  });
});
