import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { KeyPairSigner } from '@solana/kit';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { auditLogDecider, streams } from '@svc/domain';
import { buildAuditAnchorTransaction } from '@svc/evidence';
import { READ_STORE, type ReadStore } from '@svc/read-store';
import { COLLECTIONS, type AuditHeadDoc, type OrganizationDoc } from '@svc/projections';
import { commandContext } from '../../infrastructure/command-context';
import { NetworkService } from '../../infrastructure/network.service';
import { INFRA_OPTIONS, RELAYER } from '../../infrastructure/tokens';
import { Decisions } from '../../shared/decisions.service';

/**
 * Anchors the heads of the organizations' audit logs on the ledger every `AUDIT_ANCHOR_SECONDS` (docs/api.md
 * "Audit log", docs/protocol.md "Audit anchor record"): for each log with entries past its last anchor, the
 * relayer signs a `svc/1 audit` memo naming the head, and `AuditAnchorRequested` records it before anything is
 * sent; SendAuditAnchorWhenRequested sends it and records the outcome. Runs where the processors run.
 */
@Injectable()
export class AuditAnchors implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuditAnchors');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly decisions: Decisions,
    private readonly network: NetworkService,
    @Inject(RELAYER) private readonly relayer: KeyPairSigner,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(INFRA_OPTIONS) private readonly options: { runProjections: boolean },
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.runProjections || this.config.auditAnchorSeconds <= 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.anchorAll()
        .then(() => undefined)
        .catch((err: unknown) => this.logger.warn(`anchoring audit logs failed, retried next time: ${(err as Error).message}`))
        .finally(() => {
          this.running = null;
        });
    }, this.config.auditAnchorSeconds * 1000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /**
   * Requests an anchor for every log whose head moved since its last anchor. One log that cannot be anchored now (its
   * head moved again while its anchor was being signed, twice in a row; the ledger not answering) is logged and
   * left to the next pass: the others are anchored all the same.
   * @returns how many were requested.
   */
  async anchorAll(): Promise<number> {
    const heads = await this.heads();
    let requested = 0;
    for (const head of heads) {
      if (head.sequence <= (head.anchoredSequence ?? 0)) continue;
      try {
        // A log that moved between the read and the request is read again once (a busy log keeps moving).
        if (await this.anchor(head.organizationId).catch(() => this.anchor(head.organizationId))) requested++;
      } catch (err) {
        this.logger.warn(`audit log of organization ${head.organizationId} not anchored in this pass, retried next time: ${(err as Error).message}`);
      }
    }
    return requested;
  }

  /** Every organization's audit log head, as the read model has it, in organization ID order. */
  protected heads(): Promise<AuditHeadDoc[]> {
    return this.readStore.collection<AuditHeadDoc>(COLLECTIONS.auditHeads).find({}, { sort: { organizationId: 1 } });
  }

  /** Requests an anchor of one log's head as its stream has it; false when there is nothing new or one is pending. */
  async anchor(organizationId: string): Promise<boolean> {
    const stream = streams.audit(organizationId);
    const { state } = await this.decisions.load(stream, auditLogDecider);
    if (state.pendingAnchor !== null || state.sequence === 0 || state.sequence <= state.anchoredSequence) return false;
    const org = await this.readStore.collection<OrganizationDoc>(COLLECTIONS.organizations).findOne({ _id: organizationId });
    if (!org) return false;
    const lifetime = await this.network.latestBlockhash();
    const tx = await buildAuditAnchorTransaction({ operator: this.relayer, organization: org.address, sequence: state.sequence, head: state.head, lifetime });
    const decided = await this.decisions.handle(
      stream,
      auditLogDecider,
      {
        kind: 'RequestAuditAnchor',
        anchor: {
          organizationId,
          organization: org.address,
          sequence: state.sequence,
          head: state.head,
          transactionSignature: tx.signature,
          transactionWire: Buffer.from(tx.wire).toString('base64'),
          lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
        },
      },
      commandContext('service:audit-anchors'),
    );
    return decided.events.length > 0;
  }
}
