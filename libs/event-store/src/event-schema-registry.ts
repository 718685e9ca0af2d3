import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { EventSchemaError, type EventMetadata } from './event-store.port';

/** File names the registry loads: `<EventType>.v<N>.json`, e.g. `VersionPublished.v1.json`. */
const SCHEMA_FILE = /^([A-Za-z][A-Za-z0-9]*)\.v([1-9][0-9]*)\.json$/;

/** Name of the folder, at the repository root, that holds one JSON Schema per event type and version. */
export const EVENT_SCHEMAS_DIR_NAME = 'event-schemas';

/** One event JSON Schema as loaded from disk. */
export interface EventSchemaSource {
  /** Event type, e.g. `VersionPublished`. */
  type: string;
  /** Schema version (>= 1), stored in `metadata.schemaVersion`. */
  version: number;
  /** The JSON Schema (draft 2020-12). Its `$id` must end with `<type>.v<version>.json`. */
  schema: Record<string, unknown>;
}

/** JSON Schema of `EventMetadata`, checked on append and on read for every event. */
const METADATA_SCHEMA = {
  $id: 'urn:svc:event-store:EventMetadata',
  type: 'object',
  additionalProperties: false,
  required: ['correlationId', 'causationId', 'actor', 'schemaVersion', 'occurredAt'],
  properties: {
    correlationId: { type: 'string', minLength: 1, maxLength: 512 },
    causationId: { type: 'string', minLength: 1, maxLength: 512 },
    actor: { type: 'string', pattern: '^[a-z][a-z0-9-]*:\\S+$', maxLength: 512 },
    schemaVersion: { type: 'integer', minimum: 1 },
    occurredAt: { type: 'string', format: 'date-time' },
  },
} as const;

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'invalid';
  return errors
    .map((e) => {
      const where = e.instancePath === '' ? '(root)' : e.instancePath;
      const extra =
        e.keyword === 'additionalProperties'
          ? ` '${String((e.params as { additionalProperty?: string }).additionalProperty)}'`
          : '';
      return `${where} ${e.message ?? e.keyword}${extra}`;
    })
    .join('; ');
}

/**
 * The JSON Schemas of every stored event type (ajv, draft 2020-12, strict mode, ajv-formats), each compiled on
 * its first use and kept: a process compiles only the types it meets, and starts without compiling all of them
 * (about half a second for the repository's schemas). Both event store adapters call it on append and on read.
 *
 * Build it with {@link EventSchemaRegistry.fromDirectory} (or {@link EventSchemaRegistry.fromDefaultDirectory},
 * the repository's `event-schemas/`); construction throws a plain `Error` when a file is misnamed, is not valid
 * JSON, has a mismatched `$id` or is a duplicate; a schema that does not compile throws a plain `Error` on its first
 * use (the repository's schemas are all compiled by its unit tests).
 */
export class EventSchemaRegistry {
  private readonly schemas = new Map<string, Record<string, unknown>>();
  private readonly validators = new Map<string, ValidateFunction>();
  private compiler: Ajv2020 | null = null;
  private validateMetadataFn: ValidateFunction | null = null;

  /**
   * @param sources one entry per (type, version); duplicates throw. Kept (plain JSON), so that a worker thread can
   *   build the same registry.
   * @throws Error when a schema's `$id` does not name it, or a (type, version) comes twice.
   */
  constructor(readonly sources: readonly EventSchemaSource[]) {
    for (const source of sources) {
      const key = EventSchemaRegistry.key(source.type, source.version);
      if (this.schemas.has(key)) throw new Error(`duplicate event schema ${key}`);
      const id = source.schema['$id'];
      const expected = `${source.type}.v${source.version}.json`;
      if (typeof id !== 'string' || !(id === expected || id.endsWith(`/${expected}`) || id.endsWith(`:${expected}`))) {
        throw new Error(`event schema ${key}: $id must name it (end with ${expected}), got ${JSON.stringify(id)}`);
      }
      this.schemas.set(key, source.schema);
    }
  }

  private ajv(): Ajv2020 {
    if (!this.compiler) {
      this.compiler = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
      addFormats(this.compiler);
    }
    return this.compiler;
  }

  /**
   * The validator of `key`, compiled on first use; undefined for a (type, version) without a schema.
   * @throws Error when the schema does not compile.
   */
  private validator(key: string): ValidateFunction | undefined {
    const compiled = this.validators.get(key);
    if (compiled) return compiled;
    const schema = this.schemas.get(key);
    if (!schema) return undefined;
    let validator: ValidateFunction;
    try {
      validator = this.ajv().compile(schema);
    } catch (err) {
      throw new Error(`event schema ${key} does not compile: ${(err as Error).message}`);
    }
    this.validators.set(key, validator);
    return validator;
  }

  /**
   * Loads every `<EventType>.v<N>.json` file of `dir` (other files are ignored); `dir` defaults to the
   * repository's `event-schemas/` ({@link EventSchemaRegistry.defaultDirectory}).
   * @throws Error when the directory cannot be read, a `.json` file is misnamed, or a schema is invalid.
   */
  static fromDirectory(dir: string = EventSchemaRegistry.defaultDirectory()): EventSchemaRegistry {
    const sources: EventSchemaSource[] = [];
    for (const file of fs.readdirSync(dir).sort()) {
      if (!file.endsWith('.json')) continue;
      const match = SCHEMA_FILE.exec(file);
      if (!match) throw new Error(`event schema file ${file} in ${dir} is not named <EventType>.v<N>.json`);
      let schema: unknown;
      try {
        schema = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
      } catch (err) {
        throw new Error(`event schema file ${path.join(dir, file)} is not valid JSON: ${(err as Error).message}`);
      }
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
        throw new Error(`event schema file ${path.join(dir, file)} is not a JSON object`);
      }
      sources.push({ type: match[1]!, version: Number(match[2]), schema: schema as Record<string, unknown> });
    }
    return new EventSchemaRegistry(sources);
  }

  /** Loads the repository's `event-schemas/` (see {@link EventSchemaRegistry.defaultDirectory}). */
  static fromDefaultDirectory(): EventSchemaRegistry {
    return EventSchemaRegistry.fromDirectory(EventSchemaRegistry.defaultDirectory());
  }

  /**
   * Absolute path of `<repo root>/event-schemas`: walks up from this file's folder (works from the
   * TypeScript sources and from `dist/libs/event-store/src`) until a folder containing `event-schemas` exists.
   * @throws Error when no such folder is found.
   */
  static defaultDirectory(startDir: string = __dirname): string {
    let dir = path.resolve(startDir);
    for (;;) {
      const candidate = path.join(dir, EVENT_SCHEMAS_DIR_NAME);
      if (fs.existsSync(candidate) && fs.statSync(candidate).isDirectory()) return candidate;
      const parent = path.dirname(dir);
      if (parent === dir) throw new Error(`no ${EVENT_SCHEMAS_DIR_NAME}/ folder found above ${startDir}`);
      dir = parent;
    }
  }

  private static key(type: string, version: number): string {
    return `${type}.v${version}`;
  }

  /** Whether a schema exists for this type (any version when `version` is omitted). */
  has(type: string, version?: number): boolean {
    if (version !== undefined) return this.schemas.has(EventSchemaRegistry.key(type, version));
    for (const key of this.schemas.keys()) if (key.startsWith(`${type}.v`)) return true;
    return false;
  }

  /** Every registered `{type, version}`, sorted by type then version. */
  list(): Array<{ type: string; version: number }> {
    return [...this.schemas.keys()]
      .map((key) => {
        const i = key.lastIndexOf('.v');
        return { type: key.slice(0, i), version: Number(key.slice(i + 2)) };
      })
      .sort((a, b) => (a.type === b.type ? a.version - b.version : a.type < b.type ? -1 : 1));
  }

  /**
   * Checks an event's data against `event-schemas/<type>.v<schemaVersion>.json`.
   * @throws EventSchemaError when the type/version is unknown or the data does not satisfy the schema; Error when
   *   the schema does not compile.
   */
  validate(type: string, schemaVersion: number, data: unknown): void {
    const validator = this.validator(EventSchemaRegistry.key(type, schemaVersion));
    if (!validator) throw new EventSchemaError(type, `no schema for ${type} version ${String(schemaVersion)}`);
    if (!validator(data)) throw new EventSchemaError(type, describeErrors(validator.errors));
  }

  /**
   * Checks the metadata shape: `correlationId`, `causationId` (non-empty strings), `actor` (`<kind>:<id>`),
   * `schemaVersion` (integer >= 1), `occurredAt` (RFC 3339 date-time); no other property.
   * @throws EventSchemaError (with `eventType` = the event's type) when it does not match.
   */
  validateMetadata(type: string, metadata: unknown): asserts metadata is EventMetadata {
    const check = (this.validateMetadataFn ??= this.ajv().compile(METADATA_SCHEMA));
    if (!check(metadata)) {
      throw new EventSchemaError(type, `metadata: ${describeErrors(check.errors)}`);
    }
  }

  /**
   * Checks metadata then data (with `metadata.schemaVersion`).
   * @throws EventSchemaError on the first problem.
   */
  validateEvent(event: { type: string; data: unknown; metadata: unknown }): void {
    if (typeof event.type !== 'string' || event.type.length === 0) {
      throw new EventSchemaError(String(event.type), 'event type must be a non-empty string');
    }
    this.validateMetadata(event.type, event.metadata);
    this.validate(event.type, event.metadata.schemaVersion, event.data);
  }
}
