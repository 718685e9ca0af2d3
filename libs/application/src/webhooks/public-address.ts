import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { DomainError } from '@svc/domain';

/** Loopback ranges, allowed only by the test setting `WEBHOOK_ALLOW_LOOPBACK` (docs/api.md "Webhooks"). */
export const LOOPBACK_RANGES: readonly string[] = ['127.0.0.0/8', '::1/128'];

/**
 * The IPv6 space outside global unicast `2000::/3` (RFC 4291 §2.4, IANA's IPv6 address space registry): reserved,
 * unallocated or special, never a public receiver. Refused when an endpoint is added and at connection time.
 */
const IPV6_OUTSIDE_GLOBAL_UNICAST: readonly string[] = ['::/3', '4000::/2', '8000::/1'];
const outsideGlobalUnicast = IPV6_OUTSIDE_GLOBAL_UNICAST.map((cidr) => ipaddr.parseCIDR(cidr));

/**
 * Whether `address` (IPv4 or IPv6 text) is a public unicast address: not private, loopback, link-local, unique-local,
 * carrier-grade NAT, multicast, broadcast, unspecified, reserved, nor an IPv4-mapped or translated IPv6 form (spec
 * §6.1 "public address"). The ranges are ipaddr.js's, the same library the connection-time filter uses; an IPv6
 * address must also lie in the global unicast space `2000::/3`, which leaves out the deprecated IPv4-compatible
 * form (`::a00:1` is 10.0.0.1) and the unallocated ranges (`4000::/2`, `8000::/1` …) that ipaddr.js calls unicast.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address) || isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || !outsideGlobalUnicast.some((range) => parsed.match(range));
}

/** Whether `address` is a loopback address (127.0.0.0/8 or ::1). */
export function isLoopbackAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  return LOOPBACK_RANGES.some((cidr) => {
    const range = ipaddr.parseCIDR(cidr);
    return parsed.kind() === range[0].kind() && parsed.match(range);
  });
}

/**
 * Whether a receiver may be reached at `address` (the public-address rule, loopback too when `allowLoopback`, a
 * test setting): used when an endpoint is added and on every address a delivery connects to.
 */
export function receiverAddressAllowed(address: string, allowLoopback: boolean): boolean {
  return isPublicAddress(address) || (allowLoopback && isLoopbackAddress(address));
}

/** Resolves a host name to every address it has (`dns.lookup`, as the connection will). */
export type HostLookup = (host: string) => Promise<string[]>;

const systemLookup: HostLookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Checks a webhook URL when an endpoint is added (spec §4.10, §8): HTTPS, at most 2048 characters, no credentials,
 * a port 1 to 65535 when one is given, and a host whose every address is public (loopback too when `allowLoopback`, a test setting). The same rule is
 * enforced again on the address each delivery connects to (DNS may change), by the delivery client.
 * @throws DomainError invalid_url (400) naming what is wrong.
 */
export async function checkWebhookUrl(raw: string, allowLoopback: boolean, lookup: HostLookup = systemLookup): Promise<URL> {
  const invalid = (why: string) => new DomainError('invalid_url', `url: ${why}`);
  // Characters as spec §8 counts them: code points (an emoji is one).
  if (raw.length > 2048 && [...raw].length > 2048) throw invalid('at most 2048 characters');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('not a URL');
  }
  if (url.protocol !== 'https:') throw invalid('must be an HTTPS URL');
  if (url.username || url.password) throw invalid('must not carry credentials');
  // The URL parser takes port 0, which no connection can reach.
  if (url.port === '0') throw invalid('the port must be 1 to 65535');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = await lookup(host);
    } catch {
      throw invalid(`the host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw invalid(`the host ${host} does not resolve`);
  for (const address of addresses) {
    if (!receiverAddressAllowed(address, allowLoopback)) throw invalid(`the host ${host} resolves to ${address}, which is not a public address`);
  }
  return url;
}
