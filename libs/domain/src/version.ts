/**
 * The fields that define a published version are the protocol's (docs/protocol.md "Version record"); the domain
 * uses the evidence library's one definition.
 */
export type { VersionFields } from '@svc/evidence';
