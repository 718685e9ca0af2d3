/**
 * How a wallet's signed sign-in message is judged against the message issued with its nonce (docs/api.md
 * "Dashboard sign-in"): field by field, as Sign-In-With-Ethereum libraries do, so that a Wallet Standard wallet
 * (`solana:signIn`) that renders the same request in its own way (times with milliseconds, a `Request ID`,
 * `Resources`) is served, and a changed field is named.
 */
import type { SignInChallengeIssuedData } from '../events';

/**
 * The fields of a signed message as parsed from the wallet's text (the `SolanaSignInInput` fields of the Wallet
 * Standard). Times are RFC 3339 text, checked by the parser to name an instant.
 */
export interface SignedSignInFields {
  domain: string;
  address: string;
  statement?: string;
  uri?: string;
  version?: string;
  chainId?: string;
  nonce?: string;
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: readonly string[];
}

/**
 * The first field of `signed` that does not match the issued message, as `<field>: <why>`, or null.
 *
 * - `domain`, `address`, `statement`, `uri`, `chainId` and `nonce` must equal the issued values, and `version` be `1`;
 *   in place of the issued CAIP-2 `chainId`, the network's Wallet Standard chain (`walletChain`) is the same network
 *   (a wallet asked to sign in on the chain it was discovered with writes that);
 * - `issuedAt` must be present and lie within the issued window (`issued.issuedAt` to `issued.expiresAt`, instants
 *   compared, so `10:00:00Z` and `10:00:00.000Z` are equal);
 * - `expirationTime` must be present, later than the signed `issuedAt` and not after `issued.expiresAt`;
 * - `notBefore`, when present, must not be after `now`;
 * - `requestId` and `resources` are the wallet's or the app's own and are not judged.
 * @param now decision time, Unix milliseconds
 * @param walletChain the Wallet Standard chain of the network the nonce was issued on (`GET /v1/network` walletChain)
 */
export function signedFieldsMismatch(issued: SignInChallengeIssuedData, signed: SignedSignInFields, now: number, walletChain: string): string | null {
  const expected: [keyof SignedSignInFields, string][] = [
    ['domain', issued.domain],
    ['address', issued.address],
    ['statement', issued.statement],
    ['uri', issued.uri],
    ['version', '1'],
    ['chainId', issued.chainId],
    ['nonce', issued.nonce],
  ];
  for (const [field, value] of expected) {
    const got = signed[field];
    if (got === undefined) return `${field}: missing from the signed message (issued: ${JSON.stringify(value)})`;
    if (got === value || (field === 'chainId' && got === walletChain)) continue;
    const alias = field === 'chainId' ? ` (or the network's wallet chain ${JSON.stringify(walletChain)})` : '';
    return `${field}: the signed message says ${JSON.stringify(got)}, the issued one ${JSON.stringify(value)}${alias}`;
  }
  const windowStart = Date.parse(issued.issuedAt);
  const windowEnd = Date.parse(issued.expiresAt);
  if (signed.issuedAt === undefined) return 'issuedAt: missing from the signed message';
  const issuedAt = Date.parse(signed.issuedAt);
  if (!(issuedAt >= windowStart && issuedAt <= windowEnd)) return `issuedAt: ${signed.issuedAt} is outside the issued window ${issued.issuedAt} to ${issued.expiresAt}`;
  if (signed.expirationTime === undefined) return 'expirationTime: missing from the signed message';
  const expiresAt = Date.parse(signed.expirationTime);
  if (!(expiresAt > issuedAt && expiresAt <= windowEnd)) return `expirationTime: ${signed.expirationTime} must be after issuedAt and not after ${issued.expiresAt}`;
  if (signed.notBefore !== undefined && !(Date.parse(signed.notBefore) <= now)) return `notBefore: the message is not valid before ${signed.notBefore}`;
  return null;
}
