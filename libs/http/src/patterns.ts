import { isBase58Address, isBase58Signature } from '@svc/evidence';

/**
 * Field formats of the API (spec "Conventions"). The regular expressions describe the shape of a value
 * (and are published in the OpenAPI description); ADDR and SIG values must also decode to 32 and 64 bytes,
 * which only the predicates below check. Validate with the predicates, never with ADDR or SIG alone.
 */
export const ADDR = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
export const SIG = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;
export const HEX64 = /^[0-9a-f]{64}$/;
export const UUID = /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$/;
export const P256ID = /^p256:0[23][0-9a-f]{64}$/;
export const SLUG = /^(?=.{1,32}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const EXT = /^[\x21-\x7e]{1,128}$/;
export const B64URL = /^[A-Za-z0-9_-]+$/;
/** An organization reference in a public path (spec §4.2): its address or its verified domain, at most 64 characters. */
export const ORG_REF = /^[A-Za-z0-9.-]{1,64}$/;

/**
 * ADDR: base58 text of 32 to 44 characters that decodes to exactly 32 bytes — the rule the evidence protocol
 * applies to every address (docs/protocol.md, "Field rules"), so an address accepted here never fails later.
 */
export const isAddress: (value: unknown) => value is string = isBase58Address;

/** SIG: base58 text of 64 to 90 characters that decodes to exactly 64 bytes (docs/protocol.md, "Field rules"). */
export const isSignature: (value: unknown) => value is string = isBase58Signature;

/** A signer: a wallet address ({@link isAddress}) or a native passkey identity (P256ID). */
export function isSigner(value: unknown): value is string {
  return isAddress(value) || (typeof value === 'string' && P256ID.test(value));
}
