/**
 * Child-process entry: a bare Fastify server answering `GET /` with a small JSON body, the ceiling of
 * any JSON GET on this machine. Sends {@link ListeningMessage} once listening; stops on SIGTERM.
 */
import Fastify from 'fastify';
import type { ListeningMessage } from './protocol';

async function main(): Promise<void> {
  const app = Fastify();
  app.get('/', async () => ({ status: 'ok' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const message: ListeningMessage = { kind: 'listening', port: typeof address === 'object' && address ? address.port : 0 };
  process.send?.(message);
  process.channel?.unref();
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

void main().catch((err: unknown) => {
  process.stderr.write(`bare fastify server failed: ${String(err)}\n`);
  process.exit(1);
});
