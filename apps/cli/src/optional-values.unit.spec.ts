import { operandsBeforeOptionalValues } from './optional-values';

const FLAGS = ['--wait', '--wait-finalized'];
const rewrite = (...words: string[]) => operandsBeforeOptionalValues(['node', 'svc', ...words], FLAGS).slice(2);

describe('operandsBeforeOptionalValues', () => {
  it('reads a file or id written after the flag as the operand, the flag without a value', () => {
    expect(rewrite('verify', '--wait-finalized', 'receipt.json', '--rpc', 'http://x/rpc')).toEqual(['verify', 'receipt.json', '--wait-finalized', '--rpc', 'http://x/rpc']);
    const id = 'a'.repeat(64);
    expect(rewrite('receipt', '--wait', id, '--out', 'r.json')).toEqual(['receipt', id, '--wait', '--out', 'r.json']);
  });

  it('keeps a number after the flag as its value, and every other word in place', () => {
    expect(rewrite('verify', '--wait-finalized', '40', 'receipt.json')).toEqual(['verify', '--wait-finalized', '40', 'receipt.json']);
    expect(rewrite('verify', '--wait-finalized', '0.5', 'receipt.json')).toEqual(['verify', '--wait-finalized', '0.5', 'receipt.json']);
    expect(rewrite('verify', 'receipt.json', '--wait-finalized')).toEqual(['verify', 'receipt.json', '--wait-finalized']);
    expect(rewrite('verify', 'receipt.json', '--wait-finalized', '--json')).toEqual(['verify', 'receipt.json', '--wait-finalized', '--json']);
    expect(rewrite('verify', '--wait-finalized=30', 'receipt.json')).toEqual(['verify', '--wait-finalized=30', 'receipt.json']);
  });

  it('leaves other options, and words after --, alone', () => {
    expect(rewrite('publish', 'terms.md', '--label', 'v1')).toEqual(['publish', 'terms.md', '--label', 'v1']);
    expect(rewrite('verify', '--', '--wait-finalized', 'receipt.json')).toEqual(['verify', '--', '--wait-finalized', 'receipt.json']);
  });

  it('does not change the list it is given', () => {
    const argv = ['node', 'svc', 'verify', '--wait-finalized', 'receipt.json'];
    operandsBeforeOptionalValues(argv, FLAGS);
    expect(argv).toEqual(['node', 'svc', 'verify', '--wait-finalized', 'receipt.json']);
  });
});
