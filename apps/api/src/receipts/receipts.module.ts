import { Module } from '@nestjs/common';
import { AcceptancesModule } from '../acceptances/acceptances.module';
import { ReceiptPageController } from './receipt-page.controller';

/** The public receipt page and receipt download, served outside the `/api` prefix. */
@Module({
  imports: [AcceptancesModule],
  controllers: [ReceiptPageController],
})
export class ReceiptsModule {}
