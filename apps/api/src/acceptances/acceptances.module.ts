import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { SharedModule } from '../shared/shared.module';
import { AcceptanceRelay } from './acceptance-relay.service';
import { AcceptanceSigningController } from './acceptances.controller';
import { IssueAcceptanceChallengeHandler } from './challenge.handlers';
import { PublicAcceptancesController } from './public-acceptances.controller';
import { ReceiptService } from './receipt.service';
import { RelayAcceptanceProcessManager } from './relay.process-manager';
import { SubmitAcceptanceHandler } from './submit.handler';

export const AcceptanceCommandHandlers = [IssueAcceptanceChallengeHandler, SubmitAcceptanceHandler];

@Module({
  imports: [CqrsModule, SharedModule],
  controllers: [AcceptanceSigningController, PublicAcceptancesController],
  providers: [...AcceptanceCommandHandlers, AcceptanceRelay, ReceiptService, RelayAcceptanceProcessManager],
  exports: [ReceiptService, RelayAcceptanceProcessManager],
})
export class AcceptancesModule {}
