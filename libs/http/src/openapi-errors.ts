import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';
import type { ErrorCode } from '@svc/domain';

/** `error` of the error envelope (spec §7), as the OpenAPI description shows it. */
class ErrorDetail {
  @ApiProperty({ description: 'Stable error code of spec §7; clients branch on it', example: 'invalid_request' })
  code!: string;

  @ApiProperty({ description: 'Human-readable reason; names the field for a 400. Its wording may change' })
  message!: string;
}

/** The body of every failed request, `{"error": {"code", "message"}}` (spec §7; the filter in error.filter.ts writes it). */
export class ErrorEnvelope {
  @ApiProperty({ type: ErrorDetail })
  error!: ErrorDetail;
}

/**
 * Declares error responses of an operation in the OpenAPI description, each with the error envelope as its
 * schema: `{401: ['unauthorized'], 403: ['forbidden', 'reauthentication_required']}`.
 */
export const ApiErrorResponses = (responses: Readonly<Record<number, readonly ErrorCode[]>>) =>
  applyDecorators(
    ...Object.entries(responses).map(([status, codes]) => ApiResponse({ status: Number(status), description: `Error envelope; code ${codes.join(' or ')}`, type: ErrorEnvelope })),
  );
