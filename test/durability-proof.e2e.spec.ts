/**
 * The durability proof (docs/architecture.md "Durability"): the service is killed (SIGKILL, armed with
 * `SVC_TEST_KILL_AT`) at each step of direct relaying, batch closing and anchoring, finality, webhook delivery and
 * audit anchoring, while a client accepts a document twice directly and three times in Merkle batches, then
 * restarted on the same data. Whatever the step, once the restarted service is idle:
 * 1. every acceptance is on the ledger exactly once: direct ones by their `svc/1 accept` memo, batched ones as a leaf
 *    of exactly one batch whose `svc/1 batch` root is anchored once, and every submission answered 2xx is among them;
 * 2. `agreement.accepted` and `agreement.finalized` reach the receiver at least once per acceptance, always under the
 *    same event id, signed so that Stripe's verifier accepts them;
 * 3. the audit chain verifies, and each of its anchors is on the ledger once per (organization, sequence);
 * 4. every acceptance has its transaction and ends `finalized`, with `AcceptanceFinalized` recorded once.
 */
import { existsSync, rmSync } from "node:fs";
import { generateKeyPairSigner } from "@solana/kit";
import { RpcLedger } from "@svc/ledger";
import Stripe from "stripe";
import { ApiClient } from "../apps/cli/src/api-client";
import { apiMain } from "../apps/cli/src/paths";
import { startService } from "../apps/cli/src/service-process";
import {
  acceptancesOnLedger,
  armedService,
  auditAnchorsOnLedger,
  batchAnchorsOnLedger,
  issueChallenge,
  recordedEvents,
  submitSigned,
  webhookReceiver,
  type ArmedService,
  type SubmitOutcome,
  type WebhookReceiver,
} from "./support/durability";
import {
  eventually,
  publishedDocument,
  type PublishedDocument,
} from "./support/fixtures";
import { tempDataDir } from "./support/test-service";

const built = existsSync(apiMain());
const stripe = new Stripe("sk_test_unused");

/** Every crash point, each reached by the workload below (the first time it is reached kills the service). */
const POINTS = [
  "relay:before-send",
  "relay:after-send",
  "batch:before-close",
  "batch:before-send",
  "batch:after-send",
  "finality:before-record",
  "webhook:before-send",
  "webhook:after-send",
  "audit:before-send",
  "audit:after-send",
] as const;

/**
 * A restart long after the crash: the ledger (whose slot clock runs on while the service is down) has finalized the
 * transaction before its outcome is recorded, which then records the finality at once.
 */
const LATE_RESTARTS = [
  { point: "relay:after-send", pauseMs: 5_000 },
  { point: "batch:after-send", pauseMs: 5_000 },
] as const;

/** The audit entries the setup makes (appended by a processor, not necessarily in this order). */
const SETUP_ACTIONS = [
  "organization.synced",
  "document.synced",
  "draft.created",
  "draft.prepared",
  "version.published",
  "webhook.created",
];

const DIRECT = 2;
const BATCHED = 3;

interface Verified {
  valid: boolean;
  head: { sequence: number; hash: string };
  firstBreak: { sequence: number; reason: string } | null;
  anchors: {
    sequence: number;
    head: string;
    transactionSignature: string;
    matchesLog: boolean;
    onLedger?: boolean;
  }[];
}

interface PublicAcceptance {
  acceptance: {
    acceptanceId: string;
    transactionSignature: string | null;
    commitment: string | null;
  };
}

interface WebhookEvent {
  id: string;
  type: string;
  organizationId: string;
  data: {
    acceptanceId: string;
    transactionSignature: string;
    commitment: string;
  };
}

/** The audit log's chain check; its head is anchored when the latest anchor covers it and is on the ledger. */
function verifyAudit(doc: PublishedDocument): Promise<Verified> {
  return doc.dashboard.request<Verified>(
    "GET",
    `/v1/organizations/${doc.organization.id}/audit-log/verify`,
  );
}

function headAnchored(v: Verified): boolean {
  return (
    v.anchors[0]?.sequence === v.head.sequence && v.anchors[0].onLedger === true
  );
}

/** The acceptance ids the event log holds (answered or not: a submission recorded before a crash counts). */
function recordedAcceptances(dataDir: string): string[] {
  return [
    ...new Set(
      recordedEvents<{ acceptanceId: string }>(
        dataDir,
        "AcceptanceSubmitted",
      ).map((e) => e.acceptanceId),
    ),
  ];
}

(built ? describe : describe.skip)(
  `durability proof: a crash at any step${built ? "" : ' (skipped: run "npm run build" first; npm test does)'}`,
  () => {
    let receiver: WebhookReceiver;
    let env: Record<string, string>;

    beforeAll(async () => {
      receiver = await webhookReceiver();
      env = {
        LEDGER_SLOT_MS: "100",
        // One lane and a window long enough for the three batched answers to come first: they share one batch.
        BATCH_WINDOW_MS: "1500",
        BATCH_LANES: "1",
        AUDIT_ANCHOR_SECONDS: "1",
        RATE_LIMIT_SIGNIN_PER_MINUTE: "1000",
        RATE_LIMIT_ACCEPTANCE_PER_MINUTE: "1000",
        WEBHOOK_RETRY_SCALE: "0.001",
        NODE_ENV: "test",
        ...receiver.env,
      };
    });
    afterAll(() => receiver?.close());

    it.each([
      ...POINTS.map((point) => ({ point, pauseMs: 0 })),
      ...LATE_RESTARTS,
    ])(
      "killed at $point, restarted after $pauseMs ms: each acceptance on the ledger once and finalized once, its webhooks delivered, the audit chain anchored",
      async ({ point, pauseMs }) => {
        const dataDir = tempDataDir("svc-durability-proof-");
        let service: ArmedService | undefined;
        try {
          // Set up on an unarmed service, stopped gracefully once its audit head is anchored: nothing is pending when
          // the armed one starts, so the kill comes from the workload.
          const setup = await startService({ dataDir, env });
          const port = Number(new URL(setup.baseUrl).port);
          let doc: PublishedDocument;
          let secret: string;
          let relayer: string;
          try {
            doc = await publishedDocument(setup, [1]);
            ({ secret } = await doc.dashboard.request<{ secret: string }>(
              "POST",
              `/v1/organizations/${doc.organization.id}/webhooks`,
              {
                url: `${receiver.base}/hooks`,
                events: ["agreement.accepted", "agreement.finalized"],
              },
            ));
            ({ relayer } = await new ApiClient(setup.baseUrl).request<{
              relayer: string;
            }>("GET", "/v1/network"));
            await eventually(async () => {
              const { entries } = await doc.dashboard.request<{
                entries: { action: string }[];
              }>(
                "GET",
                `/v1/organizations/${doc.organization.id}/audit-log?limit=200`,
              );
              const actions = new Set(entries.map((e) => e.action));
              return SETUP_ACTIONS.every((a) => actions.has(a)) &&
                headAnchored(await verifyAudit(doc))
                ? true
                : undefined;
            }, 15_000);
          } finally {
            await setup.stop();
          }

          service = await armedService({
            dataDir,
            port,
            env,
            point,
            pauseBeforeRestartMs: pauseMs,
          });
          const armed = service;
          const client = new ApiClient(armed.baseUrl);
          const target = {
            organization: doc.organization.address,
            document: doc.document.address,
          };
          const answered = {
            DIRECT_ONCHAIN: [] as string[],
            MERKLE_BATCHED: [] as string[],
          };
          const accept = async (mode: keyof typeof answered) => {
            const signer = await generateKeyPairSigner();
            const challenge = await armed.call(() =>
              issueChallenge(client, target, signer),
            );
            expect(challenge.evidenceMode).toBe(mode);
            // A submission interrupted by the crash is sent again, with the same challenge, to the restarted service.
            const outcome = await armed.call(
              async (): Promise<SubmitOutcome> => {
                const o = await submitSigned(client, challenge, signer);
                if (o.kind === "connection_error") throw o.error;
                return o;
              },
            );
            if (outcome.kind !== "ok") return;
            expect(outcome.result.status).toBe(
              mode === "DIRECT_ONCHAIN" ? "confirmed" : "pending_batch",
            );
            answered[mode].push(outcome.result.acceptanceId);
          };
          for (let i = 0; i < DIRECT; i++) await accept("DIRECT_ONCHAIN");
          await armed.call(() =>
            doc.dashboard.request(
              "PATCH",
              `/v1/organizations/${doc.organization.id}/settings`,
              { evidenceMode: "MERKLE_BATCHED" },
            ),
          );
          for (let i = 0; i < BATCHED; i++) await accept("MERKLE_BATCHED");

          // Until every recorded acceptance is finalized with both webhooks delivered, and the audit head is anchored.
          const ours = () =>
            receiver.received
              .filter(
                (d) =>
                  (JSON.parse(d.body) as WebhookEvent).organizationId ===
                  doc.organization.id,
              )
              .map((d) => ({
                ...d,
                event: stripe.webhooks.constructEvent(
                  d.body,
                  d.signature,
                  secret,
                ) as unknown as WebhookEvent,
              }));
          let waitingFor = "";
          const idle = async () => {
            const ids = recordedAcceptances(dataDir);
            const records: PublicAcceptance["acceptance"][] = [];
            for (const id of ids) {
              const { response, text } = await armed.call(() =>
                client.raw("GET", `/v1/public/acceptances/${id}`),
              );
              if (response.status !== 200)
                return void (waitingFor = `acceptance ${id}: ${response.status}`);
              records.push((JSON.parse(text) as PublicAcceptance).acceptance);
            }
            const unfinalized = records.find(
              (r) => r.commitment !== "finalized",
            );
            if (unfinalized)
              return void (waitingFor = `acceptance ${unfinalized.acceptanceId}: commitment ${unfinalized.commitment}`);
            const delivered = new Set(
              ours().map((d) => `${d.event.type} ${d.event.data.acceptanceId}`),
            );
            const undelivered = ids
              .flatMap((id) => [
                `agreement.accepted ${id}`,
                `agreement.finalized ${id}`,
              ])
              .find((key) => !delivered.has(key));
            if (undelivered)
              return void (waitingFor = `webhook ${undelivered}`);
            const audit = await armed.call(() => verifyAudit(doc));
            if (!headAnchored(audit))
              return void (waitingFor = `audit head ${audit.head.sequence} anchored`);
            return { ids, records, audit };
          };
          const { ids, records, audit } = await eventually(
            idle,
            30_000,
            250,
          ).catch((err: Error) => {
            throw new Error(`${err.message}, waiting for ${waitingFor}`);
          });

          // The armed service died at its point (every point is on this workload's path) and was restarted.
          const restarted = armed.restarted();
          expect(restarted).not.toBeNull();
          expect(armed.armed.process.signalCode).toBe("SIGKILL");
          expect(
            answered.DIRECT_ONCHAIN.length + answered.MERKLE_BATCHED.length,
          ).toBeGreaterThanOrEqual(DIRECT + BATCHED - 1);
          expect(ids).toEqual(
            expect.arrayContaining([
              ...answered.DIRECT_ONCHAIN,
              ...answered.MERKLE_BATCHED,
            ]),
          );

          // 1. Exactly once on the ledger.
          const ledger = new RpcLedger({ url: restarted!.rpcUrl });
          const direct = (await acceptancesOnLedger(ledger, relayer)).map(
            (a) => a.acceptanceId,
          );
          const batches = await batchAnchorsOnLedger(ledger, relayer);
          expect(new Set(batches.map((b) => b.root)).size).toBe(batches.length);
          expect(
            new Set(batches.map((b) => `${b.lane}/${b.sequence}`)).size,
          ).toBe(batches.length);
          const leaves: string[] = [];
          for (const batch of batches) {
            const manifest = await client.request<{
              leaves: { acceptanceId: string }[];
            }>("GET", `/v1/public/batches/${batch.root}`);
            expect(manifest.leaves).toHaveLength(batch.size);
            leaves.push(...manifest.leaves.map((l) => l.acceptanceId));
          }
          const onLedger = [...direct, ...leaves];
          expect(new Set(onLedger).size).toBe(onLedger.length);
          expect([...onLedger].sort()).toEqual([...ids].sort());
          expect(direct).toEqual(
            expect.arrayContaining(answered.DIRECT_ONCHAIN),
          );
          expect(leaves).toEqual(
            expect.arrayContaining(answered.MERKLE_BATCHED),
          );
          expect(ids).toHaveLength(DIRECT + BATCHED);

          // 2. Every webhook at least once, one event id per (type, acceptance), matching the record.
          const byEvent = new Map<string, Set<string>>();
          for (const { event } of ours()) {
            const record = records.find(
              (r) => r.acceptanceId === event.data.acceptanceId,
            );
            expect(event.data.transactionSignature).toBe(
              record?.transactionSignature,
            );
            const key = `${event.type} ${event.data.acceptanceId}`;
            byEvent.set(key, (byEvent.get(key) ?? new Set()).add(event.id));
          }
          expect([...byEvent.keys()].sort()).toEqual(
            ids
              .flatMap((id) => [
                `agreement.accepted ${id}`,
                `agreement.finalized ${id}`,
              ])
              .sort(),
          );
          for (const eventIds of byEvent.values())
            expect(eventIds.size).toBe(1);

          // 3. The audit chain verifies; each anchor is on the ledger once.
          expect(audit).toMatchObject({ valid: true, firstBreak: null });
          const anchors = await auditAnchorsOnLedger(ledger, relayer);
          expect(
            new Set(anchors.map((a) => `${a.organization} ${a.sequence}`)).size,
          ).toBe(anchors.length);
          expect(anchors).toContainEqual(
            expect.objectContaining({
              organization: doc.organization.address,
              sequence: audit.head.sequence,
              head: audit.head.hash,
              transactionSignature: audit.anchors[0]!.transactionSignature,
            }),
          );

          // 4. Every acceptance has its transaction, is finalized, and its finality is recorded once.
          expect(
            records.every(
              (r) =>
                r.transactionSignature !== null && r.commitment === "finalized",
            ),
          ).toBe(true);
          const finalized = recordedEvents<{ acceptanceId: string }>(
            dataDir,
            "AcceptanceFinalized",
          ).map((e) => e.acceptanceId);
          expect([...finalized].sort()).toEqual([...ids].sort());
        } finally {
          await service?.stop();
          rmSync(dataDir, { recursive: true, force: true });
        }
      },
    );
  },
);
