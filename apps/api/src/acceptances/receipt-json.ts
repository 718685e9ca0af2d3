import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AcceptanceReceipt, VerificationReport } from '@svc/evidence';

/**
 * Stands for the document text while a receipt is serialized: a string no receipt field holds (a NUL character and a
 * random id of this process), so its JSON is found exactly once.
 */
const TEXT_SLOT = `\u0000document-text-${randomUUID()}`;
const TEXT_SLOT_JSON = JSON.stringify(TEXT_SLOT);

/** UTF-8 bytes of the JSON string literals of document texts, bounded by their total size (32 MiB). */
const textJson = new LRUCache<string, Buffer>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (json) => Math.max(1, json.length) });

/**
 * `{receipt, report}` as the UTF-8 bytes of its JSON text, exactly what `JSON.stringify` gives (same keys, same
 * order, same escapes), with the document text, the bulk of a receipt (tens of KiB), escaped and encoded once per
 * text rather than on every answer. Bytes rather than a string: the answer's length and encoding then cost nothing
 * more when it is sent.
 */
export function receiptWithReportJson(result: { receipt: AcceptanceReceipt; report: VerificationReport }): Buffer {
  const text = result.receipt.documentText;
  let escaped = textJson.get(text);
  if (escaped === undefined) {
    // JSON.stringify escapes lone surrogates, so its output always encodes to UTF-8 and back unchanged.
    escaped = Buffer.from(JSON.stringify(text), 'utf8');
    textJson.set(text, escaped);
  }
  const json = JSON.stringify({ receipt: { ...result.receipt, documentText: TEXT_SLOT }, report: result.report });
  const at = json.indexOf(TEXT_SLOT_JSON);
  return Buffer.concat([Buffer.from(json.slice(0, at), 'utf8'), escaped, Buffer.from(json.slice(at + TEXT_SLOT_JSON.length), 'utf8')]);
}
