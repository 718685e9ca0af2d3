import { randomUUID } from 'node:crypto';
import {
  MongoClient,
  MongoServerError,
  type Collection as MongoCollection,
  type Db,
  type Document,
  type Filter as MongoFilter,
  type MongoClientOptions,
  type UpdateFilter,
} from 'mongodb';
import {
  DuplicateKeyError,
  type Checkpoint,
  type Collection,
  type Doc,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type ReadStore,
  type Update,
  type UpdateResult,
} from './read-store.port';
import {
  CHECKPOINTS_COLLECTION,
  assertCollectionName,
  assertFindOptions,
  assertNoBigInt,
  assertOperatorUpdate,
  parsePosition,
  upsertSeed,
  type CheckpointDoc,
} from './read-store.support';

/** Database used when the connection string names none. */
export const DEFAULT_MONGO_DATABASE = 'svc';

export interface MongoReadStoreOptions {
  /** Connection string (`MONGODB_URL`), `mongodb://` or `mongodb+srv://`; the path names the database. */
  url: string;
  /** Database name; default: the one in the URL path, else `svc`. */
  database?: string;
  /** Extra driver options (merged over the store's: `ignoreUndefined: true`). */
  clientOptions?: MongoClientOptions;
}

/** Documents as the driver sees them: a string `_id` and anything else. */
type StoredDoc = Document & { _id: string };

/**
 * The database named in a MongoDB connection string, or undefined when it names none.
 * `mongodb://user:pw@h1:27017,h2/name?replicaSet=rs` → `name`.
 */
export function databaseFromUrl(url: string): string | undefined {
  const m = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?#]*)/.exec(url.trim());
  if (!m || !m[1]) return undefined;
  const name = decodeURIComponent(m[1]);
  return name === '' ? undefined : name;
}

function isDuplicateKey(err: unknown): err is MongoServerError {
  return err instanceof MongoServerError && (err.code === 11000 || err.code === 11001);
}

function mapError(err: unknown, collection: string): unknown {
  if (isDuplicateKey(err)) return new DuplicateKeyError(collection, err.message, { cause: err });
  return err;
}

/** Whether an upsert with this filter would take its `_id` from the filter (else we generate a string one). */
function seedsId(filter: Filter): boolean {
  return typeof upsertSeed(filter)['_id'] === 'string';
}

class MongoReadCollection<T extends Doc> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly coll: MongoCollection<StoredDoc>,
    private readonly isClosed: () => boolean,
  ) {}

  /** The driver collection; throws once the store is closed (the driver would silently reconnect). */
  private get c(): MongoCollection<StoredDoc> {
    if (this.isClosed()) throw new Error(`read store closed (collection ${this.name})`);
    return this.coll;
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    assertFindOptions(options, this.name);
    assertNoBigInt(filter, `${this.name} filter`);
    const cursor = this.c.find(filter as MongoFilter<StoredDoc>, {
      ...(options?.sort ? { sort: options.sort } : {}),
      ...(options?.skip ? { skip: options.skip } : {}),
      ...(options?.limit ? { limit: options.limit } : {}),
    });
    return (await cursor.toArray()) as unknown as T[];
  }

  async findOne(filter: Filter): Promise<T | null> {
    assertNoBigInt(filter, `${this.name} filter`);
    return (await this.c.findOne(filter as MongoFilter<StoredDoc>)) as unknown as T | null;
  }

  async count(filter: Filter): Promise<number> {
    assertNoBigInt(filter, `${this.name} filter`);
    return this.c.countDocuments(filter as MongoFilter<StoredDoc>);
  }

  async insertOne(doc: T): Promise<void> {
    if (typeof doc._id !== 'string') throw new TypeError(`${this.name}: _id must be a string`);
    assertNoBigInt(doc, this.name);
    try {
      await this.c.insertOne(doc as unknown as StoredDoc);
    } catch (err) {
      throw mapError(err, this.name);
    }
  }

  async updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    assertOperatorUpdate(update, this.name);
    assertNoBigInt(filter, `${this.name} filter`);
    let mongoUpdate = update as UpdateFilter<StoredDoc>;
    if (options?.upsert && !seedsId(filter)) {
      // The driver would insert an ObjectId; the port promises string ids.
      mongoUpdate = { ...mongoUpdate, $setOnInsert: { _id: randomUUID() } } as UpdateFilter<StoredDoc>;
    }
    try {
      const res = await this.c.updateOne(filter as MongoFilter<StoredDoc>, mongoUpdate, { upsert: options?.upsert ?? false });
      return { matched: res.matchedCount, modified: res.modifiedCount, upserted: res.upsertedCount > 0 };
    } catch (err) {
      throw mapError(err, this.name);
    }
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    assertOperatorUpdate(update, this.name);
    assertNoBigInt(filter, `${this.name} filter`);
    try {
      const res = await this.c.updateMany(filter as MongoFilter<StoredDoc>, update as UpdateFilter<StoredDoc>);
      return { matched: res.matchedCount, modified: res.modifiedCount, upserted: false };
    } catch (err) {
      throw mapError(err, this.name);
    }
  }

  async replaceOne(doc: T): Promise<void> {
    if (typeof doc._id !== 'string') throw new TypeError(`${this.name}: _id must be a string`);
    assertNoBigInt(doc, this.name);
    try {
      await this.c.replaceOne({ _id: doc._id }, doc as unknown as StoredDoc, { upsert: true });
    } catch (err) {
      throw mapError(err, this.name);
    }
  }

  async deleteMany(filter: Filter): Promise<number> {
    assertNoBigInt(filter, `${this.name} filter`);
    const res = await this.c.deleteMany(filter as MongoFilter<StoredDoc>);
    return res.deletedCount;
  }

  async ensureIndex(index: IndexSpec): Promise<void> {
    if (Object.keys(index.fields).length === 0) throw new TypeError(`${this.name}: an index needs at least one field`);
    try {
      await this.c.createIndex(index.fields, { unique: index.unique ?? false, sparse: index.sparse ?? false });
    } catch (err) {
      throw mapError(err, this.name);
    }
  }

  /** Port contract: the server builds each index on its own, one after the other. */
  async ensureIndexes(indexes: readonly IndexSpec[]): Promise<void> {
    for (const index of indexes) await this.ensureIndex(index);
  }

  async drop(): Promise<void> {
    await this.c.drop(); // the driver ignores "namespace not found"
  }
}

/**
 * The production read store on MongoDB (driver 7.x). One MongoDB collection per read-store
 * collection, `_id` always a string, checkpoints in the `checkpoints` collection as
 * `{ _id: <key>, position: <decimal string>, updatedAt: <ISO 8601> }`.
 *
 * The client is created with `ignoreUndefined: true`, so `undefined` values are dropped as NeDB does.
 */
export class MongoReadStore implements ReadStore {
  private readonly client: MongoClient;
  private readonly db: Db;
  private readonly checkpoints: MongoCollection<CheckpointDoc>;
  private readonly collections = new Map<string, MongoReadCollection<Doc>>();
  private closed = false;

  /**
   * Creates the store without connecting (the driver connects on first use); prefer
   * {@link MongoReadStore.connect}, which fails fast when the server is unreachable.
   * @throws MongoParseError when the connection string is malformed.
   */
  constructor(options: MongoReadStoreOptions) {
    this.client = new MongoClient(options.url, { ignoreUndefined: true, ...options.clientOptions });
    this.db = this.client.db(options.database ?? databaseFromUrl(options.url) ?? DEFAULT_MONGO_DATABASE);
    this.checkpoints = this.db.collection<CheckpointDoc>(CHECKPOINTS_COLLECTION);
  }

  /**
   * Connects and checks the server answers.
   * @throws the driver's error (e.g. MongoServerSelectionError) when it cannot connect.
   */
  static async connect(options: MongoReadStoreOptions): Promise<MongoReadStore> {
    const store = new MongoReadStore(options);
    try {
      await store.client.connect();
      await store.db.command({ ping: 1 });
    } catch (err) {
      await store.client.close().catch(() => undefined);
      throw err;
    }
    return store;
  }

  /** Name of the database in use. */
  get databaseName(): string {
    return this.db.databaseName;
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    const existing = this.collections.get(name);
    if (existing) return existing as unknown as Collection<T>;
    if (this.closed) throw new Error('read store closed');
    assertCollectionName(name);
    const created = new MongoReadCollection<Doc>(name, this.db.collection<StoredDoc>(name), () => this.closed);
    this.collections.set(name, created);
    return created as unknown as Collection<T>;
  }

  async getCheckpoint(projection: string): Promise<bigint | null> {
    const doc = await this.checkpoints.findOne({ _id: projection });
    return doc ? parsePosition(doc) : null;
  }

  async saveCheckpoint(projection: string, position: bigint): Promise<void> {
    if (typeof position !== 'bigint') throw new TypeError('saveCheckpoint: position must be a bigint');
    await this.checkpoints.replaceOne(
      { _id: projection },
      { position: position.toString(), updatedAt: new Date().toISOString() }, // _id comes from the filter
      { upsert: true },
    );
  }

  async deleteCheckpoint(projection: string): Promise<void> {
    await this.checkpoints.deleteOne({ _id: projection });
  }

  async removeCollection(name: string): Promise<void> {
    assertCollectionName(name);
    if (this.closed) throw new Error(`read store closed (collection ${name})`);
    this.collections.delete(name);
    await this.db.collection(name).drop(); // the driver ignores "namespace not found"
  }

  async listCheckpoints(): Promise<Checkpoint[]> {
    const docs = await this.checkpoints.find({}, { sort: { _id: 1 } }).toArray();
    return docs.map((d) => ({ projection: d._id, position: parsePosition(d), updatedAt: d.updatedAt }));
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const res = await this.db.command({ ping: 1 });
      return res['ok'] === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close();
  }
}
