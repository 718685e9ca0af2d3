import type { EventStore } from '@svc/event-store';
import { RelayOutcomes, type RelayOutcome } from './relay-outcomes';

// The processors run in this process, so the store is never subscribed to: RelayOutcomes only hands outcomes over.
const outcomes = () => new RelayOutcomes({} as EventStore, { runProjections: true });

const relayed = (acceptanceId: string): RelayOutcome =>
  ({ type: 'AcceptanceRelayed', data: { acceptanceId, transactionSignature: 'sig', slot: 7, feeLamports: 10_000 }, position: 42n }) as unknown as RelayOutcome;

describe('RelayOutcomes', () => {
  afterEach(() => jest.useRealTimers());

  it('hands a recorded outcome to every wait for that acceptance, and to no other', async () => {
    const o = outcomes();
    const first = o.expect('a', 60_000);
    const second = o.expect('a', 60_000);
    const other = o.expect('b', 10);
    o.recorded(relayed('a'));
    await expect(first.outcome).resolves.toMatchObject({ type: 'AcceptanceRelayed', position: 42n });
    await expect(second.outcome).resolves.toMatchObject({ type: 'AcceptanceRelayed', position: 42n });
    await expect(other.outcome).resolves.toBeNull();
  });

  it('drops only the cancelled wait: another submission of the same acceptance still gets its outcome', async () => {
    const o = outcomes();
    const winner = o.expect('a', 60_000);
    const refused = o.expect('a', 60_000);
    refused.cancel();
    await expect(refused.outcome).resolves.toBeNull();
    o.recorded(relayed('a'));
    await expect(winner.outcome).resolves.toMatchObject({ data: { acceptanceId: 'a' } });
  });

  it('answers null when no outcome is recorded within the wait, and ignores an outcome arriving later', async () => {
    jest.useFakeTimers();
    const o = outcomes();
    const wait = o.expect('a', 30_000);
    jest.advanceTimersByTime(30_000);
    await expect(wait.outcome).resolves.toBeNull();
    expect(() => o.recorded(relayed('a'))).not.toThrow();
    const again = o.expect('a', 30_000);
    o.recorded(relayed('a'));
    await expect(again.outcome).resolves.not.toBeNull();
  });
});
