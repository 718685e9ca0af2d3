import { Injectable } from '@nestjs/common';

/** Holds the OpenAPI 3 description generated from the controllers and DTOs at start-up. */
@Injectable()
export class OpenApiDocument {
  private document: Record<string, unknown> = {};
  set(document: Record<string, unknown>): void {
    this.document = document;
  }
  get(): Record<string, unknown> {
    return this.document;
  }
}
