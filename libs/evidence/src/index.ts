/**
 * `@svc/evidence`: the evidence protocol `svc/1` — canonical content and hashes, signed messages,
 * memo records, Ed25519 precompile instructions, evidence transactions, receipts and their
 * independent verifier. The byte-exact contract is docs/protocol.md.
 */
export * from './constants';
export * from './errors';
export { bytesToBase58, base58ToBytes } from './base58';
export * from './validation';
export { parseJsonText, JsonTextError } from './json-text';
export { sha256Hex, taggedSha256Hex } from './hash';
export * from './content';
export * from './acceptance-message';
export * from './memo';
export * from './ed25519-instruction';
export * from './transactions';
export * from './acceptance-layout';
export * from './signatures';
export * from './sign-in-message';
export * from './receipt';
export * from './verifier';
export { landingAgainstWindow, lastValidLandingTime, validityWindowOf, type ValidityWindow } from './validity-window';
export * from './verifier-memo';
export * from './acceptance-wire';
export * from './audit-chain';
export * from './merkle';
export * from './batch';
