import fc from 'fast-check';
import { generateKeyPairSigner } from '@solana/kit';
import { EVENT_STORE, type EventStore } from '@svc/event-store';
import { requestsFor, routesOf, type FuzzRequest, type OpenApiDocument, type Pools, type Route } from './support/openapi-fuzz';
import { dashboardFixture, envelopeCode, outcome, send, type DashboardFixture, type RawAnswer } from './support/raw-http';
import { startTestService, type TestService } from './support/test-service';

/**
 * Property-based fuzzing of every route of the served OpenAPI document (spec §4, §7, §8): whatever the
 * input, never a 5xx; every 4xx is exactly the envelope `{"error":{"code","message"}}`; a request with an
 * unknown key or a non-JSON body is never accepted; and a refused request writes nothing (the event store's
 * head does not move). Reproduce a failure with `FUZZ_SEED=<seed>` (printed with the counterexample).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 30);

describe('fuzzing every route of the OpenAPI document', () => {
  let service: TestService;
  let fixture: DashboardFixture;
  let routes: Route[];
  let pools: Pools;
  let events: EventStore;

  beforeAll(async () => {
    const unthrottled = '1000000';
    service = await startTestService({
      env: { RATE_LIMIT_GENERAL_PER_MINUTE: unthrottled, RATE_LIMIT_SIGNIN_PER_MINUTE: unthrottled, RATE_LIMIT_ACCEPTANCE_PER_MINUTE: unthrottled },
    });
    events = service.app.get<EventStore>(EVENT_STORE);
    fixture = await dashboardFixture(service);
    const draft = await send(service.baseUrl, 'POST', `/v1/documents/${fixture.document.id}/drafts`, {
      body: JSON.stringify({ title: 'Terms of Service', versionLabel: 'v1', source: '# Terms\n' }),
      session: fixture.session,
    });
    expect(outcome(draft)).toBe('200 ok');
    const created = (draft.json as { draft: Record<string, string> }).draft;
    const doc = (await send(service.baseUrl, 'GET', '/v1/openapi.json')).json as OpenApiDocument;
    routes = routesOf(doc);
    const wallet = (await generateKeyPairSigner()).address;
    pools = {
      addresses: [fixture.organization.address, fixture.document.address, wallet],
      byName: {
        orgId: [fixture.organization.id],
        documentId: [fixture.document.id],
        draftId: [created.id ?? created.draftId],
        ref: [fixture.organization.address, 'example.com'],
        slug: ['terms', 'terms-of-service'],
        address: [fixture.document.address, wallet],
        publicKey: [wallet],
        hash: [created.contentHash ?? 'a'.repeat(64)],
        acceptanceId: ['0'.repeat(64)],
      },
    };
  });
  afterAll(() => service.destroy());

  /** The event store's head once nothing has been appended for a moment (work started by an accepted request is done). */
  async function settledHead(): Promise<bigint> {
    let head = await events.headPosition();
    for (;;) {
      await new Promise((r) => setTimeout(r, 25));
      const next = await events.headPosition();
      if (next === head) return head;
      head = next;
    }
  }

  /** Why the answer breaks a rule of the edge, or null. */
  function violation(request: FuzzRequest, answer: RawAnswer, before: bigint, after: bigint): string | null {
    if (answer.status >= 500) return `server error ${answer.status}: ${answer.text.slice(0, 300)}`;
    if (answer.status >= 400 && envelopeCode(answer) === undefined) return `${answer.status} without the error envelope: ${answer.text.slice(0, 300)}`;
    if (answer.status < 400 && request.mustFail) return `${answer.status} accepted despite ${request.mustFail}`;
    if (answer.status >= 400 && after !== before) return `${outcome(answer)} but the event store moved from ${before} to ${after}`;
    return null;
  }

  it('never answers 5xx, always answers 4xx in the envelope, and never writes on a refusal', async () => {
    expect(routes.length).toBeGreaterThan(20);
    const tally = new Map<string, number>();
    let head = await settledHead();
    for (const [index, route] of routes.entries()) {
      // Signing out would end the session the other routes use: that route is fuzzed without it.
      const keepSession = route.path !== '/v1/auth/logout';
      const needsSession = (route.operation.security ?? []).length > 0 && keepSession;
      await fc.assert(
        fc.asyncProperty(requestsFor(route, pools), async (request) => {
          const answer = await send(service.baseUrl, route.method, request.path, {
            body: request.body,
            contentType: request.contentType,
            headers: request.headers,
            session: needsSession && request.withSession ? fixture.session : undefined,
          });
          const after = await events.headPosition();
          const problem = violation(request, answer, head, after);
          const key = `${answer.status}`;
          tally.set(key, (tally.get(key) ?? 0) + 1);
          if (answer.status < 400) head = await settledHead();
          if (problem) throw new Error(`${route.method} ${request.path.slice(0, 200)}: ${problem}`);
        }),
        { seed: SEED + index, numRuns: RUNS_PER_ROUTE, endOnFailure: true },
      );
    }
    // The runs reached past the format checks, not only into them.
    process.stdout.write(`fuzz answers by status (seed ${SEED}, ${RUNS_PER_ROUTE} runs per route, ${routes.length} routes): ${JSON.stringify(Object.fromEntries(tally))}\n`);
    expect([...tally.keys()].some((status) => status.startsWith('2'))).toBe(true);
    expect(tally.get('400') ?? 0).toBeGreaterThan(routes.length);
  });
});
