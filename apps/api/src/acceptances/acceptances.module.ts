import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { SharedModule } from '@svc/application';
import { AcceptanceSigningController } from './acceptances.controller';
import { IssueAcceptanceChallengeHandler } from './challenge.handlers';
import { PublicationCatchUp } from '../organizations/publication-catch-up';
import { OpenChallengeCap } from './open-challenges';
import { PublicAcceptancesController } from './public-acceptances.controller';
import { ReceiptService } from './receipt.service';
import { SubmitAcceptanceHandler } from './submit.handler';

export const AcceptanceCommandHandlers = [IssueAcceptanceChallengeHandler, SubmitAcceptanceHandler];

@Module({
  imports: [CqrsModule, SharedModule],
  controllers: [AcceptanceSigningController, PublicAcceptancesController],
  providers: [...AcceptanceCommandHandlers, ReceiptService, OpenChallengeCap, PublicationCatchUp],
  exports: [ReceiptService],
})
export class AcceptancesModule {}
