import { Module } from '@nestjs/common';
import { AcceptanceRelay } from './acceptance-relay.service';
import { Decisions } from './decisions.service';
import { EventLog } from './event-log.service';
import { LedgerHistory } from './ledger-history.service';
import { OrganizationFactsReader } from './organization-facts.service';
import { QuotaTurns } from './quota-turns';
import { RelayOutcomes } from './relay-outcomes';
import { WebhookSecrets } from '../webhooks/webhook-secrets';

const SHARED = [AcceptanceRelay, Decisions, EventLog, LedgerHistory, OrganizationFactsReader, QuotaTurns, RelayOutcomes, WebhookSecrets];

@Module({ providers: SHARED, exports: SHARED })
export class SharedModule {}
