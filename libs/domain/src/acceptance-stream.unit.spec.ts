import { acceptanceStreamParts, streams } from './events';

describe('acceptanceStreamParts', () => {
  const version = '7EqQdEULxWcraVx3mXKFjc84LhCkMGZCkRuDpvcMwJeK';

  it('gives back the version and the signer an acceptance stream was named from', () => {
    const wallet = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
    expect(acceptanceStreamParts(streams.acceptance(version, wallet))).toEqual({ versionAddress: version, signer: wallet });
    // A signer id that itself holds dashes is kept whole.
    expect(acceptanceStreamParts(streams.acceptance(version, 'p256-abc-def'))).toEqual({ versionAddress: version, signer: 'p256-abc-def' });
  });

  it('is null for every other stream', () => {
    expect(acceptanceStreamParts(streams.document(version))).toBeNull();
    expect(acceptanceStreamParts(streams.challenge('c0ffee'))).toBeNull();
    expect(acceptanceStreamParts('acceptance-only')).toBeNull();
  });
});
