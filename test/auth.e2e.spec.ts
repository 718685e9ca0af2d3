import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionContext } from '@nestjs/common';
import { AdjustableClock } from '@svc/application';
import { DomainError } from '@svc/domain';
import { ApiClient, type StoredSession } from '../apps/cli/src/api-client';
import { signIn, signText } from '../apps/cli/src/operations';
import { FreshSignatureGuard } from '../apps/api/src/auth/fresh-signature.guard';
import { SessionGuard } from '../apps/api/src/auth/session.guard';
import { codeOf } from './support/durability';
import { startTestService, type TestService } from './support/test-service';

type Challenge = { message: string; nonce: string; issuedAt: string; expiresAt: string };
type Me = { address: string; signedAt: string; expiresAt: string; freshUntil: string };

/** The route this suite adds to the service: an operation behind SessionGuard and FreshSignatureGuard, as sensitive writes are. */
const GUARDED = '/api/test-only/fresh-signature';

/** The Wallet Standard's helpers, when installed (a test-only package): a wallet builds its message with them. */
type WalletStandardUtil = { createSignInMessageText(input: Record<string, unknown>): string; parseSignInMessageText(text: string): Record<string, unknown> | null };
const walletStandard: WalletStandardUtil | null = (() => {
  try {
    return require('@solana/wallet-standard-util') as WalletStandardUtil;
  } catch {
    return null;
  }
})();

/** Renders the issued message the way some wallets do: times with milliseconds, then a request id and resources. */
function asWalletRenders(message: string): string {
  return `${message.replace(/(Issued At|Expiration Time): (\S+)Z$/gm, '$1: $2.000Z')}\nRequest ID: dashboard-1\nResources:\n- https://example.com/terms`;
}

describe('dashboard sign-in and re-authentication', () => {
  let service: TestService;
  let client: ApiClient;
  const clock = new AdjustableClock();

  beforeAll(async () => {
    service = await startTestService({
      clock,
      env: { RATE_LIMIT_SIGNIN_PER_MINUTE: '1000' },
      beforeListen: (app) => {
        const sessions = app.get(SessionGuard);
        const fresh = app.get(FreshSignatureGuard);
        // @nestjs/platform-fastify carries its own copy of fastify's types; the instance is the same object.
        const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
        fastify.post(GUARDED, async (request: FastifyRequest, reply: FastifyReply) => {
          const context = { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
          try {
            await sessions.canActivate(context);
            await fresh.canActivate(context);
            return reply.send({ done: true });
          } catch (err) {
            if (!(err instanceof DomainError)) throw err;
            return reply.status(err.status).send({ error: { code: err.code, message: err.message } });
          }
        });
      },
    });
    client = new ApiClient(service.baseUrl);
  });
  afterAll(() => service.destroy());

  const dashboardOf = (session: StoredSession) => new ApiClient(service.baseUrl).useSession(session);
  const guarded = (session: StoredSession) => dashboardOf(session).request('POST', GUARDED.replace(/^\/api/, ''));

  async function verify(wallet: KeyPairSigner, signedMessage: string) {
    return client.raw('POST', '/v1/auth/verify', { address: wallet.address, signedMessage, signature: await signText(wallet, signedMessage) });
  }

  it('signs in with the message as a Wallet Standard wallet renders it (milliseconds, Request ID, Resources)', async () => {
    const wallet = await generateKeyPairSigner();
    const challenge = await client.request<Challenge>('POST', '/v1/auth/challenge', { address: wallet.address });
    const { response, text } = await verify(wallet, asWalletRenders(challenge.message));
    expect(response.status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ address: wallet.address });
  });

  (walletStandard ? it : it.skip)(
    walletStandard ? 'signs in with a message built by createSignInMessageText from a wallet-side SolanaSignInInput' : 'skipped: @solana/wallet-standard-util is not installed',
    async () => {
      const wallet = await generateKeyPairSigner();
      const challenge = await client.request<Challenge>('POST', '/v1/auth/challenge', { address: wallet.address });
      // What the app hands the wallet's `solana:signIn`: the issued fields, with the wallet's own time format.
      const input = { ...walletStandard!.parseSignInMessageText(challenge.message), issuedAt: new Date(challenge.issuedAt).toISOString(), requestId: 'r-7' };
      const { response } = await verify(wallet, walletStandard!.createSignInMessageText(input));
      expect(response.status).toBe(200);
    },
  );

  it(
    walletStandard ? 'signs in with a SolanaSignInInput on the announced walletChain, as a wallet discovered on that chain writes it' : 'skipped: @solana/wallet-standard-util is not installed',
    async () => {
      const wallet = await generateKeyPairSigner();
      const { walletChain, chainId } = await client.request<{ walletChain: string; chainId: string }>('GET', '/v1/network');
      expect(walletChain).toBe('solana:localnet');
      const challenge = await client.request<Challenge>('POST', '/v1/auth/challenge', { address: wallet.address });
      const input = { ...walletStandard!.parseSignInMessageText(challenge.message), chainId: walletChain };
      const text = walletStandard!.createSignInMessageText(input);
      expect(text).toContain('Chain ID: solana:localnet');
      expect(text).not.toContain(chainId);
      const { response } = await verify(wallet, text);
      expect(response.status).toBe(200);
    },
  );

  it('refuses a changed field with 401 unauthorized naming the field', async () => {
    const wallet = await generateKeyPairSigner();
    const changes: [string, (m: string) => string][] = [
      ['domain', (m) => m.replace(/^[^ ]+ wants/, 'evil.example.com wants')],
      ['statement', (m) => m.replace('Sign in to the agreement', 'Log in to the agreement')],
      ['uri', (m) => m.replace(/^URI: .*$/m, 'URI: https://evil.example.com')],
      ['chainId', (m) => m.replace(/^Chain ID: .*$/m, 'Chain ID: solana:devnet')],
      ['expirationTime', (m) => m.replace(/^Expiration Time: (.*)$/m, (_, t: string) => `Expiration Time: ${new Date(Date.parse(t) + 60_000).toISOString()}`)],
    ];
    for (const [field, change] of changes) {
      const challenge = await client.request<Challenge>('POST', '/v1/auth/challenge', { address: wallet.address });
      const { response, text } = await verify(wallet, change(challenge.message));
      expect([field, response.status]).toEqual([field, 401]);
      expect(JSON.parse(text).error).toEqual({ code: 'unauthorized', message: expect.stringContaining(`${field}: `) });
    }
  });

  it('11 minutes after sign-in a guarded operation answers 403 reauthentication_required; after re-authentication it passes', async () => {
    const wallet = await generateKeyPairSigner();
    const session = await signIn(client, wallet);
    const dashboard = dashboardOf(session);
    const me = await dashboard.request<Me>('GET', '/v1/auth/me');
    expect(Date.parse(me.freshUntil) - Date.parse(me.signedAt)).toBe(600_000);
    expect(await codeOf(guarded(session))).toBe('ok');

    clock.advance(11 * 60);
    expect(Date.parse((await dashboard.request<Me>('GET', '/v1/auth/me')).freshUntil)).toBeLessThan(clock.now().getTime());
    expect(await codeOf(guarded(session))).toBe('403 reauthentication_required');

    const challenge = await dashboard.request<Challenge>('POST', '/v1/auth/reauthenticate/challenge');
    expect(challenge.message).toContain('(re-authentication)');
    expect(challenge.message).toContain(`Nonce: ${challenge.nonce}`);
    expect(Date.parse(challenge.issuedAt)).toBeGreaterThan(Date.parse(me.signedAt) + 10 * 60_000);
    const renewed = await dashboard.request<Me>('POST', '/v1/auth/reauthenticate', {
      signedMessage: challenge.message,
      signature: await signText(wallet, challenge.message),
    });
    expect(renewed).toMatchObject({ address: wallet.address, expiresAt: me.expiresAt });
    expect(Date.parse(renewed.freshUntil)).toBeGreaterThan(clock.now().getTime());
    expect(await dashboard.request<Me>('GET', '/v1/auth/me')).toEqual(renewed);
    expect(await codeOf(guarded(session))).toBe('ok');
  });

  it('re-authentication refusals: CSRF, another wallet, a sign-in nonce, reuse, expiry, a re-authentication message used to sign in', async () => {
    const wallet = await generateKeyPairSigner();
    const other = await generateKeyPairSigner();
    const session = await signIn(client, wallet);
    const dashboard = dashboardOf(session);
    const submit = async (message: string, signer = wallet) =>
      codeOf(dashboard.request('POST', '/v1/auth/reauthenticate', { signedMessage: message, signature: await signText(signer, message) }));

    const noCsrf = await fetch(`${service.baseUrl}/api/v1/auth/reauthenticate/challenge`, {
      method: 'POST',
      headers: { cookie: `svc_session=${session.session}; svc_csrf=${session.csrf}`, origin: service.baseUrl },
    });
    expect(noCsrf.status).toBe(403);
    expect(await codeOf(new ApiClient(service.baseUrl).request('POST', '/v1/auth/reauthenticate/challenge'))).toBe('403 forbidden');

    const challenge = await dashboard.request<Challenge>('POST', '/v1/auth/reauthenticate/challenge');
    expect(await submit(challenge.message, other)).toBe('400 invalid_signature');
    // A re-authentication message cannot open a session, nor a sign-in message renew one.
    expect((await verify(wallet, challenge.message)).response.status).toBe(401);
    const signInChallenge = await client.request<Challenge>('POST', '/v1/auth/challenge', { address: wallet.address });
    expect(await submit(signInChallenge.message)).toBe('401 unauthorized');

    expect(await submit(asWalletRenders(challenge.message))).toBe('ok');
    expect(await submit(challenge.message)).toBe('401 unauthorized');

    const late = await dashboard.request<Challenge>('POST', '/v1/auth/reauthenticate/challenge');
    clock.advance(10 * 60);
    expect(await submit(late.message)).toBe('401 unauthorized');
    expect(await codeOf(dashboard.request('POST', '/v1/auth/reauthenticate', { signedMessage: 'hello', signature: await signText(wallet, 'hello') }))).toBe(
      '400 invalid_request',
    );
  });
});
