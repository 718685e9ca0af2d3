import { AppendTooLargeError } from '@svc/event-store';
import { toErrorResponse } from './error.filter';

describe('error responses', () => {
  it('answers a write the event log refuses for its size with 413 invalid_request, saying nothing was recorded', () => {
    const { status, body } = toErrorResponse(new AppendTooLargeError('draft-7f3c', 1_048_576));
    expect(status).toBe(413);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toBe("request too large for this deployment's event log (append limit of 1048576 bytes); nothing was recorded");
    expect(body.error.message).not.toContain('draft-7f3c');
  });

  it('keeps unknown errors to internal_error without details', () => {
    expect(toErrorResponse(new Error('database path /srv/data/events.sqlite is locked'))).toEqual({ status: 500, body: { error: { code: 'internal_error', message: 'internal error' } } });
  });
});
