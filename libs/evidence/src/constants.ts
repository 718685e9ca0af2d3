/**
 * Constants of the evidence protocol `svc/1`. Values here are part of the public contract
 * documented in docs/protocol.md; changing one is a protocol version change.
 */
import { address, type Address } from '@solana/kit';

/** Memo program v2 (SPL Memo). Checks that every account passed to it signed. Source: Solana Program Library docs. */
export const MEMO_PROGRAM_ADDRESS: Address<'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'> = address(
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
);

/** Ed25519 signature-verification precompile. Source: Solana docs, "Native programs: Ed25519 program". */
export const ED25519_PROGRAM_ADDRESS: Address<'Ed25519SigVerify111111111111111111111111111'> = address(
  'Ed25519SigVerify111111111111111111111111111',
);

/** Protocol identifier of wallet (and legacy protected-key) acceptances; first token of every record. */
export const PROTOCOL_V1 = 'svc/1' as const;

/** Reserved protocol identifier of native passkey acceptances (secp256r1); not implemented by this library. */
export const PROTOCOL_V2 = 'svc/2' as const;

/** Maximum size in bytes of a serialized Solana transaction (IPv6 MTU minus headers). Source: Solana docs, "Transactions". */
export const TRANSACTION_SIZE_LIMIT = 1232;

/** Maximum size in bytes of an `svc/1` acceptance message (UTF-8). */
export const ACCEPTANCE_MESSAGE_MAX_BYTES = 700;

/** Domain-separation tags: hashed as ASCII, followed by one 0x00 byte, then the payload. */
export const TAG_FINGERPRINT = 'svc:v1:fingerprint';
export const TAG_ACCEPTANCE = 'svc:v1:acceptance';

/** Format identifier of direct-mode acceptance receipts. */
export const RECEIPT_FORMAT_V1 = 'svc-receipt-v1' as const;

/** Format identifier of batched-evidence receipts (`evidenceMode` `MERKLE_BATCHED`, with an inclusion proof). */
export const RECEIPT_FORMAT_V2 = 'svc-receipt/2' as const;

/** Format identifier of a batch manifest: every leaf's evidence, the root and the anchoring transaction. */
export const BATCH_MANIFEST_FORMAT = 'svc-batch-manifest/1' as const;
