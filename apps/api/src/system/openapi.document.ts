import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * Holds the OpenAPI 3 description generated from the controllers and DTOs. Start-up hands over how to make it, and
 * it is made on its first read and kept: walking every route's metadata takes about a quarter of a second, which a
 * start need not wait for.
 */
@Injectable()
export class OpenApiDocument {
  private make: (() => OpenAPIObject) | null = null;
  private document: OpenAPIObject | null = null;

  /** Sets how the description is made (once the application is initialised). */
  set(make: () => OpenAPIObject): void {
    this.make = make;
    this.document = null;
  }

  /** The description, made on the first call; `{}` before start-up finished. */
  get(): OpenAPIObject | Record<string, never> {
    if (!this.document && this.make) this.document = this.make();
    return this.document ?? {};
  }
}
