import { urlForLog } from './request-log';

describe('request targets in request logs', () => {
  it('keeps the path and the query parameter names, not their values', () => {
    expect(urlForLog('/api/v1/acceptances?externalUserRef=customer-1042&limit=5')).toBe('/api/v1/acceptances?externalUserRef=…&limit=…');
    expect(urlForLog('/api/v1/acceptances?cursor=eyJ2IjoxfQ.tag&flag')).toBe('/api/v1/acceptances?cursor=…&flag');
  });

  it('leaves a target without a query string as it is', () => {
    expect(urlForLog('/api/v1/public/acceptances/ab12')).toBe('/api/v1/public/acceptances/ab12');
    expect(urlForLog('/api/health?')).toBe('/api/health?');
  });
});
