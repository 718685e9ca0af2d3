import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '@svc/domain';

/** `error` of the error envelope (spec §7). */
export class ErrorDetail {
  @ApiProperty({ type: String, description: 'Stable error code (spec §7 table)' })
  code!: string;
  @ApiProperty({ type: String, description: 'Human-readable explanation; names the field for a 400' })
  message!: string;
}

/** The error envelope every failure answers with: `{"error": {"code", "message"}}` (spec §7). */
export class ErrorEnvelope {
  @ApiProperty({ type: ErrorDetail })
  error!: ErrorDetail;
}

/**
 * Declares an endpoint's error responses in the OpenAPI document: one response per HTTP status, whose schema is the
 * error envelope with `error.code` limited to the given codes (statuses from the spec §7 table, `ERROR_STATUS`).
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return applyDecorators(
    ApiExtraModels(ErrorEnvelope, ErrorDetail),
    ...[...byStatus].map(([status, list]) =>
      ApiResponse({
        status,
        description: list.map((c) => `\`${c}\``).join(', '),
        schema: {
          allOf: [
            { $ref: getSchemaPath(ErrorEnvelope) },
            { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'string', enum: list } } } } },
          ],
        },
      }),
    ),
  );
}
