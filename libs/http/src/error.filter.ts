import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError, ERROR_STATUS, type ErrorCode } from '@svc/domain';
import { AppendTooLargeError } from '@svc/event-store';
import { EdgeError } from './body';

/** The error body of every failed request (spec §7). */
export interface ErrorBody {
  error: { code: string; message: string };
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'chain_state',
  408: 'invalid_request',
  413: 'invalid_request',
  414: 'invalid_request',
  415: 'invalid_request',
  431: 'invalid_request',
  429: 'rate_limited',
};

/**
 * The one place where errors become HTTP responses: `{"error": {"code", "message"}}` with the
 * status of the code (spec §7), and `retry-after` (seconds) for a domain error that says when to try again.
 * Unknown errors are logged and answered with `internal_error` without details.
 */
@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { status, body } = toErrorResponse(exception, this.logger);
    if (exception instanceof DomainError && exception.retryAfterSeconds !== undefined) void reply.header('retry-after', String(exception.retryAfterSeconds));
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
  }
}

/** Maps any thrown value to the spec's status and error body. */
export function toErrorResponse(exception: unknown, logger?: Logger): { status: number; body: ErrorBody } {
  if (exception instanceof EdgeError) {
    return { status: exception.statusCode, body: { error: { code: exception.code, message: exception.message } } };
  }
  if (exception instanceof DomainError) {
    return { status: ERROR_STATUS[exception.code], body: { error: { code: exception.code, message: exception.message } } };
  }
  if (exception instanceof AppendTooLargeError) {
    // A deployment whose event log takes smaller writes than the API's limits (README "Production topology").
    logger?.warn(exception.message);
    const limit = exception.limitBytes !== undefined ? ` of ${exception.limitBytes} bytes` : '';
    return { status: 413, body: { error: { code: 'invalid_request', message: `request too large for this deployment's event log (append limit${limit}); nothing was recorded` } } };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    let message = exception.message;
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const m = (response as { message: unknown }).message;
      message = Array.isArray(m) ? m.join('; ') : String(m);
    }
    const code = CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
    if (status >= 500) {
      logger?.error(exception);
      return { status: 500, body: { error: { code: 'internal_error', message: 'internal error' } } };
    }
    return { status, body: { error: { code, message } } };
  }
  const fastifyError = exception as { statusCode?: number; code?: string; message?: string };
  if (typeof fastifyError?.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    // Errors raised by Fastify itself (body too large, malformed JSON, unsupported media type).
    const code = CODE_BY_STATUS[fastifyError.statusCode] ?? 'invalid_request';
    return { status: fastifyError.statusCode, body: { error: { code, message: fastifyError.message ?? 'invalid request' } } };
  }
  logger?.error(exception instanceof Error ? exception.stack ?? exception.message : String(exception));
  return { status: 500, body: { error: { code: 'internal_error', message: 'internal error' } } };
}
