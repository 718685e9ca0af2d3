/** Content stream `content-<hash>`: the canonical bytes of a text, stored once; storing them again is a no-op. */
import type { ContentStoredData, EventOf } from '../events';
import { HEX } from '../testing/fixtures';
import { decided, given } from '../testing/given-when-then';
import { contentDecider } from './content.decider';

const TEXT = '# Terms of Service\n\nThank you for using our services.\n';
const CONTENT: ContentStoredData = { contentHash: HEX.content1, text: TEXT, byteLength: Buffer.byteLength(TEXT, 'utf8'), mediaType: 'text/markdown' };
const stored: EventOf<'ContentStored'> = { type: 'ContentStored', data: CONTENT };

describe('content decider', () => {
  it('stores content the stream has not seen', () => {
    expect(given(contentDecider).when({ kind: 'StoreContent', content: CONTENT })).toEqual(decided(stored));
  });

  it('storing known content again decides nothing', () => {
    expect(given(contentDecider, [stored]).when({ kind: 'StoreContent', content: CONTENT })).toEqual(decided());
  });
});
