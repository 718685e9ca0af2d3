/**
 * The text of an API key (spec §5 "API keys" rule 1): `svc_test_` on test networks, `svc_live_` on a main network,
 * then 32 random bytes in base64url (43 characters). Only the SHA-256 of the whole key is stored.
 */
import { newSecret } from '@svc/application';

export type ApiKeyNetworkPrefix = 'svc_test_' | 'svc_live_';

/** Clusters that are a main network; every other cluster (localnet, devnet, testnet, ...) is a test network. */
const MAIN_NETWORK_CLUSTERS: ReadonlySet<string> = new Set(['mainnet', 'mainnet-beta']);

export function apiKeyPrefixFor(cluster: string): ApiKeyNetworkPrefix {
  return MAIN_NETWORK_CLUSTERS.has(cluster) ? 'svc_live_' : 'svc_test_';
}

/** A key's shape: prefix and 43 base64url characters. */
export const API_KEY_PATTERN = /^svc_(?:test|live)_[A-Za-z0-9_-]{43}$/;

/** Characters of a key kept in clear for lists: the network prefix and the first four random characters. */
export const API_KEY_SHOWN_PREFIX_LENGTH = 13;

/** A new key for the network `cluster`. */
export function newApiKey(cluster: string): string {
  return `${apiKeyPrefixFor(cluster)}${newSecret(32)}`;
}
