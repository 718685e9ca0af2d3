import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { LRUCache } from 'lru-cache';
import type Tinypool from 'tinypool';
import { DomainError } from '@svc/domain';
import { parseBlocksJson } from './parse-thread';

/** The worker's module as built; absent when the code runs from its TypeScript sources (tests parse in-thread). */
const THREAD_MODULE = path.join(__dirname, 'parse-thread.js');
/** Bytes of parsed answers kept (a parse of a 2,000,000-character source can take seconds; its answer never changes). */
const CACHE_BYTES = 64 * 1024 * 1024;
/** Parses that may wait for the thread; past them a request is refused with 429 rather than queued for minutes. */
const MAX_WAITING = 32;
/** A thread left idle this long (ms) is stopped; the next parse starts one again. */
const IDLE_MS = 60_000;

/**
 * The structured blocks of published content (`GET /v1/public/content/{hash}/parsed`, docs/api.md "Documents"),
 * parsed on one worker thread (tinypool) so that a pathological 2,000,000-character source, which markdown-it may
 * take seconds over, never holds the event loop that every other request shares. Content is immutable, so each
 * answer is kept (least recently read out first, {@link CACHE_BYTES} at most) and concurrent requests for one hash
 * share one parse.
 */
@Injectable()
export class ParsedContent implements OnModuleDestroy {
  private readonly logger = new Logger(ParsedContent.name);
  private readonly answers = new LRUCache<string, string>({ maxSize: CACHE_BYTES, sizeCalculation: (json) => Math.max(1, json.length) });
  private readonly parsing = new Map<string, Promise<string>>();
  private pool: Promise<Tinypool | null> | undefined;

  /**
   * The JSON text of `{contentHash, format: "markdown", blocks}` for the content `hash`, whose text `source` reads.
   * @throws DomainError rate_limited (429) when {@link MAX_WAITING} parses already wait for the thread; what `source`
   *   throws (not_found).
   */
  async answer(hash: string, source: () => Promise<string>): Promise<string> {
    const kept = this.answers.get(hash);
    if (kept !== undefined) return kept;
    let running = this.parsing.get(hash);
    if (!running) {
      running = this.parse(hash, source).finally(() => this.parsing.delete(hash));
      this.parsing.set(hash, running);
    }
    return running;
  }

  async onModuleDestroy(): Promise<void> {
    const pool = await this.pool;
    await pool?.destroy();
  }

  private async parse(hash: string, source: () => Promise<string>): Promise<string> {
    const text = await source();
    const pool = await (this.pool ??= this.startPool());
    if (pool && pool.queueSize >= MAX_WAITING) throw new DomainError('rate_limited', 'too many documents are being parsed; retry in a few seconds', 5);
    const blocks = pool ? ((await pool.run(text, { name: 'parseBlocksJson' })) as string) : parseBlocksJson(text);
    const json = `{"contentHash":${JSON.stringify(hash)},"format":"markdown","blocks":${blocks}}`;
    this.answers.set(hash, json);
    return json;
  }

  private async startPool(): Promise<Tinypool | null> {
    if (!existsSync(THREAD_MODULE)) return null;
    const { Tinypool } = await import('tinypool');
    this.logger.debug(`parsing content on a worker thread (${THREAD_MODULE})`);
    return new Tinypool({ filename: THREAD_MODULE, minThreads: 0, maxThreads: 1, idleTimeout: IDLE_MS });
  }
}
