/**
 * Child-process entry that runs the compiled API service (`node service-host.js <path of apps/api/src/main.js>`)
 * in this very process, and takes {@link HostCommand}s over IPC to start and stop a V8 CPU profile of it
 * (Chrome DevTools `.cpuprofile` format), so the benchmark can see where the service spends its time under load.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { HostCommand, HostReply } from './protocol';

const mainPath = process.argv[2];
if (!mainPath) {
  process.stderr.write('usage: service-host.js <path of the compiled API main.js>\n');
  process.exit(2);
}

const session = new Session();
session.connect();

async function handle(command: HostCommand): Promise<HostReply> {
  switch (command.kind) {
    case 'profile:start':
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 500 });
      await session.post('Profiler.start');
      return { kind: 'profile:started' };
    case 'profile:stop': {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(command.file, JSON.stringify(profile));
      return { kind: 'profile:stopped', file: command.file };
    }
    default: {
      const never: never = command;
      throw new Error(`unknown command ${JSON.stringify(never)}`);
    }
  }
}

process.on('message', (command: HostCommand) => {
  handle(command)
    .catch((err: unknown): HostReply => ({ kind: 'error', message: err instanceof Error ? err.message : String(err) }))
    .then((reply) => process.send?.(reply));
});
// The IPC channel must not keep the service alive once it shuts down.
process.channel?.unref();

// The service starts as it would under `node main.js`, in this process (CommonJS build).
require(mainPath);
