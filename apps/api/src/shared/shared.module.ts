import { Module } from '@nestjs/common';
import { EventLog } from './event-log.service';
import { LedgerHistory } from './ledger-history.service';

@Module({ providers: [EventLog, LedgerHistory], exports: [EventLog, LedgerHistory] })
export class SharedModule {}
