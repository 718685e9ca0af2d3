/**
 * The anchoring pass over every organization's audit log (docs/api.md "Audit log": each log whose head moved is
 * anchored): one log that cannot be anchored now does not keep the others from being anchored.
 */
import type { KeyPairSigner } from '@solana/kit';
import type { AppConfig } from '@svc/config';
import type { ReadStore } from '@svc/read-store';
import type { AuditHeadDoc } from '@svc/projections';
import type { Decisions } from '../../shared/decisions.service';
import type { NetworkService } from '../../infrastructure/network.service';
import { AuditAnchors } from './audit-anchors';

/** The pass alone: the heads it reads, and an `anchor` step that fails for the organizations given. */
class PassUnderTest extends AuditAnchors {
  readonly tried: string[] = [];
  constructor(
    private readonly logs: AuditHeadDoc[],
    private readonly failing: Set<string>,
  ) {
    super({} as Decisions, {} as NetworkService, {} as KeyPairSigner, {} as ReadStore, {} as AppConfig, { runProjections: true });
  }
  protected override async heads(): Promise<AuditHeadDoc[]> {
    return this.logs;
  }
  override async anchor(organizationId: string): Promise<boolean> {
    this.tried.push(organizationId);
    if (this.failing.has(organizationId)) throw new Error(`audit anchor of ${organizationId} is not the head`);
    return true;
  }
}

const head = (organizationId: string, sequence: number, anchoredSequence?: number): AuditHeadDoc => ({ _id: organizationId, organizationId, sequence, head: 'f'.repeat(64), anchoredSequence });

describe('AuditAnchors.anchorAll', () => {
  it('anchors the logs after one that fails, tries the failing one twice, and skips logs anchored up to their head', async () => {
    const pass = new PassUnderTest(
      [
        head('a-busy', 300, 298),
        head('b', 4),
        head('c-anchored', 7, 7),
        head('d', 2, 1),
      ],
      new Set(['a-busy']),
    );
    expect(await pass.anchorAll()).toBe(2);
    expect(pass.tried).toEqual(['a-busy', 'a-busy', 'b', 'd']);
  });
});
