import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { toErrorResponse } from '@svc/http';
import { PAGE_SECURITY_HEADERS, renderErrorPage } from './receipt-page.view';

const PAGES: Record<number, { heading: string; message: string }> = {
  400: {
    heading: 'Not a receipt address',
    message: 'A receipt address ends with the acceptance ID: 64 lower-case hexadecimal characters.',
  },
  404: {
    heading: 'Receipt not found',
    message: 'This service holds no confirmed acceptance with this ID. A new acceptance appears here once its transaction is confirmed on the ledger.',
  },
  409: {
    heading: 'Receipt on its way',
    message: 'This acceptance is recorded and waits for its batch to be anchored on the ledger, within about ten seconds. Reload the page then.',
  },
  429: { heading: 'Too many requests', message: 'Please wait a minute and try again.' },
};
const UNAVAILABLE = { heading: 'Receipt unavailable', message: 'The receipt cannot be shown right now. Please try again later.' };

/** Answers the receipt page's errors with an HTML page (same status as the API would use) instead of the JSON envelope. */
@Catch()
export class ReceiptPageErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ReceiptPage');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { status } = toErrorResponse(exception, this.logger);
    const page = PAGES[status] ?? UNAVAILABLE;
    void reply
      .status(status)
      .headers({ ...PAGE_SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .send(renderErrorPage(status, page.heading, page.message));
  }
}
