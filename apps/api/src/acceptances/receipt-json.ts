import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AcceptanceReceipt, VerificationReport } from '@svc/evidence';

/**
 * Stands for the document text while a receipt is serialized: a string no receipt field holds (a NUL character and a
 * random id of this process), so its JSON is found exactly once.
 */
const TEXT_SLOT = `\u0000document-text-${randomUUID()}`;
const TEXT_SLOT_JSON = JSON.stringify(TEXT_SLOT);

/** JSON string literals of document texts, bounded by their total size (UTF-16 code units, about 32 MiB). */
const textJson = new LRUCache<string, string>({ maxSize: 16 * 1024 * 1024, sizeCalculation: (json) => Math.max(1, json.length) });

/**
 * `{receipt, report}` as JSON text, exactly what `JSON.stringify` gives (same keys, same order, same escapes), with
 * the document text, the bulk of a receipt (tens of KiB), escaped once per text rather than on every answer.
 */
export function receiptWithReportJson(result: { receipt: AcceptanceReceipt; report: VerificationReport }): string {
  const text = result.receipt.documentText;
  let escaped = textJson.get(text);
  if (escaped === undefined) {
    escaped = JSON.stringify(text);
    textJson.set(text, escaped);
  }
  const json = JSON.stringify({ receipt: { ...result.receipt, documentText: TEXT_SLOT }, report: result.report });
  const at = json.indexOf(TEXT_SLOT_JSON);
  return json.slice(0, at) + escaped + json.slice(at + TEXT_SLOT_JSON.length);
}
