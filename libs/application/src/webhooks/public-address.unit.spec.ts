/** The public-address rule of webhook URLs (spec §4.10, §6.1): IPv4 and IPv6, on every resolved address. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '@svc/config';
import { DomainError } from '@svc/domain';
import { checkWebhookUrl, isLoopbackAddress, isPublicAddress } from './public-address';
import { WebhookClient } from './webhook-client';
import { webhookDeliveryId, webhookEventId, webhookSignature } from './webhook-signature';

describe('public addresses', () => {
  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ['private', '10.1.2.3'],
    ['private', '172.16.0.1'],
    ['private', '192.168.0.10'],
    ['loopback', '127.0.0.1'],
    ['loopback', '127.45.6.7'],
    ['link-local (cloud metadata)', '169.254.169.254'],
    ['carrier-grade NAT', '100.64.0.1'],
    ['unspecified', '0.0.0.0'],
    ['broadcast', '255.255.255.255'],
    ['multicast', '224.0.0.1'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 unique local', 'fd12:3456:789a::1'],
    ['IPv4-mapped private', '::ffff:10.0.0.1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4-compatible cloud metadata (deprecated ::/96)', '::a9fe:a9fe'],
    ['IPv4-compatible private', '::a00:1'],
    ['IPv4-compatible private', '::c0a8:101'],
    ['unallocated IPv6 (4000::/2)', '4000::1'],
    ['unallocated IPv6 (8000::/1)', '8000::1'],
    ['unallocated IPv6 (e000::/4)', 'e000::1'],
    ['not an address', 'example.com'],
  ])('a %s address (%s) is not', (_kind, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('knows loopback addresses', () => {
    expect(['127.0.0.1', '127.9.9.9', '::1'].map(isLoopbackAddress)).toEqual([true, true, true]);
    expect(['10.0.0.1', '::2', '8.8.8.8'].map(isLoopbackAddress)).toEqual([false, false, false]);
  });
});

describe('checkWebhookUrl', () => {
  const resolvesTo = (...addresses: string[]) => async () => addresses;
  const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof DomainError ? e.code : String(e)));

  it('accepts an HTTPS URL whose host resolves to public addresses only', async () => {
    expect(await codeOf(checkWebhookUrl('https://hooks.example.com/svc', false, resolvesTo('93.184.215.14', '2606:4700:4700::1111')))).toBe('ok');
  });

  it.each([
    ['plain HTTP', 'http://hooks.example.com/svc', resolvesTo('93.184.215.14')],
    ['credentials', 'https://user:pw@hooks.example.com/svc', resolvesTo('93.184.215.14')],
    ['a host with one private address among public ones', 'https://hooks.example.com/svc', resolvesTo('93.184.215.14', '10.0.0.5')],
    ['a host resolving to loopback', 'https://localhost/svc', resolvesTo('127.0.0.1', '::1')],
    ['a literal loopback address', 'https://127.0.0.1:8443/svc', resolvesTo()],
    ['a literal IPv6 loopback', 'https://[::1]/svc', resolvesTo()],
    ['a literal link-local address', 'https://169.254.169.254/latest/meta-data', resolvesTo()],
    ['a literal IPv6 link-local address', 'https://[fe80::1]/svc', resolvesTo()],
    ['a literal unique local address', 'https://[fd00::5]/svc', resolvesTo()],
    ['a host that does not resolve', 'https://nowhere.invalid/svc', async () => Promise.reject(new Error('ENOTFOUND'))],
    ['a URL over 2048 characters', `https://hooks.example.com/${'a'.repeat(2040)}`, resolvesTo('93.184.215.14')],
    ['text that is no URL', 'hooks example', resolvesTo('93.184.215.14')],
    ['port 0', 'https://93.184.215.14:0/x', resolvesTo()],
  ])('refuses %s with invalid_url', async (_what, url, lookup) => {
    expect(await codeOf(checkWebhookUrl(url, false, lookup))).toBe('invalid_url');
  });

  it('allows loopback only with the test setting, and still refuses private addresses then', async () => {
    expect(await codeOf(checkWebhookUrl('https://127.0.0.1:8443/svc', true, resolvesTo()))).toBe('ok');
    expect(await codeOf(checkWebhookUrl('https://localhost/svc', true, resolvesTo('::1')))).toBe('ok');
    expect(await codeOf(checkWebhookUrl('https://10.0.0.1/svc', true, resolvesTo()))).toBe('invalid_url');
  });
});

describe('webhook signature and ids', () => {
  it('signs "<t>.<raw body>" with HMAC-SHA256 keyed by the whole secret text (a known vector)', () => {
    // HMAC-SHA256(key "whsec_test", "1700000000.{}"), computed independently with openssl.
    expect(webhookSignature('whsec_test', 1_700_000_000, '{}')).toBe(`t=1700000000,v1=35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91`);
  });

  it('derives stable ids', () => {
    const id = webhookEventId('0c5bd3a4-2f8e-4a61-9d7b-3e2f1a0b9c8d');
    expect(id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(webhookEventId('0c5bd3a4-2f8e-4a61-9d7b-3e2f1a0b9c8d')).toBe(id);
    expect(webhookEventId('1c5bd3a4-2f8e-4a61-9d7b-3e2f1a0b9c8d')).not.toBe(id);
    const delivery = webhookDeliveryId('6f0b4a5e-3c2d-4e1f-9a8b-7c6d5e4f3a2b', id);
    expect(delivery).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(webhookDeliveryId('7f0b4a5e-3c2d-4e1f-9a8b-7c6d5e4f3a2b', id)).not.toBe(delivery);
  });
});

describe('the delivery client refuses a non-public receiver at connection time', () => {
  const client = new WebhookClient(loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-webhook-client-')), WEBHOOK_TIMEOUT_MS: '2000' }));
  afterAll(() => client.onApplicationShutdown());

  it.each(['https://[::a9fe:a9fe]/hook', 'https://[4000::1]/hook', 'https://10.0.0.1/hook', 'https://[::ffff:a9fe:a9fe]/hook'])('%s: no request, the attempt names the address', async (url) => {
    const answer = await client.post(url, '{}', {});
    expect(answer.statusCode).toBeNull();
    expect(answer.error).toMatch(/not (a public address|allowed)/);
  });

  it('refuses a host name whose address is not public (checked on what DNS gives when connecting)', async () => {
    const answer = await client.post('https://localhost/hook', '{}', {});
    expect(answer.statusCode).toBeNull();
    expect(answer.error).toMatch(/is not a public address|not allowed/);
  });
});
