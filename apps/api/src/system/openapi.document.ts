import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/** Holds the OpenAPI 3 description generated from the controllers and DTOs at start-up. */
@Injectable()
export class OpenApiDocument {
  private document: OpenAPIObject | null = null;
  set(document: OpenAPIObject): void {
    this.document = document;
  }
  /** The description, or `{}` before start-up finished. */
  get(): OpenAPIObject | Record<string, never> {
    return this.document ?? {};
  }
}
