#!/usr/bin/env node
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { KeyPairSigner } from '@solana/kit';
import { httpUrlProblem, keyFilesReadableByOthers, OWNER_ONLY_UMASK } from '@svc/config';
import { generateKeypairFile, LedgerError, LedgerErrorCode, loadKeypairSigner, RpcLedger, toSignature } from '@svc/ledger';
import { isEffectiveAt, serializeReceipt, verifyReceipt, type VerificationReport } from '@svc/evidence';
import { ApiClient, ApiError, loadSession, saveSession, ServiceUnreachableError } from './api-client';
import {
  acceptAsWallet,
  createDocumentOnLedger,
  createOrganizationOnLedger,
  fetchReceipt,
  publishVersion,
  signIn,
  syncDocument,
  syncOrganization,
  type OrganizationRecord,
} from './operations';
import { Output } from './output';
import { UsageError } from './usage-error';
import { operandsBeforeOptionalValues } from './optional-values';

// Everything the CLI writes (key pairs, sessions, receipts, the demo's and rebuilt read models in DATA_DIR) is owner-only.
process.umask(OWNER_ONLY_UMASK);

const DEFAULT_API = process.env.SVC_API_URL ?? 'http://localhost:3000';
const DEFAULT_SESSION = path.join(process.env.HOME ?? '.', '.svc', 'session.json');
const LAMPORTS_PER_SOL = 1_000_000_000n;

const program = new Command();
program.name('svc').description('Agreement evidence service: publish documents on the ledger, accept them, verify receipts.').version('0.1.0');
// A command line that cannot run (unknown option, missing argument) exits 2, as grep and diff do, so that a script can
// tell it from a command that ran and said no (1). Set before the commands are added: they inherit it.
/**
 * Ends a command line that cannot run: exit 2 (its `error: …` line is already on stderr). With `--json`, stdout gets
 * the error as JSON too, as for the errors of a command's action (`run`).
 */
function exitCommandLine(message: string): never {
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ error: { code: 'invalid_command_line', message: message.replace(/^error: /, '') } }, null, 2)}\n`);
  }
  process.exit(2);
}
program.exitOverride((err) => (err.exitCode === 0 ? process.exit(0) : exitCommandLine(err.message)));
// Output that cannot be written (a full disk, a closed pipe) is no answer: exit 2, as for a command line that cannot
// run, never 1, which `svc verify` gives for a verdict other than VALID. A reader that went away (EPIPE) is not told.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') process.stderr.write(`error: cannot write the output: ${err.code ?? err.message}\n`);
  process.exit(2);
});

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number');
  return n;
}

/** Longest wait a Node timer takes, in seconds (2^31 - 1 ms). */
const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** A `--timeout`: a number of seconds from 0.001 (one millisecond) to {@link MAX_TIMER_SECONDS}. */
function timeoutSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0.001 || n > MAX_TIMER_SECONDS) throw new InvalidArgumentError(`must be a number of seconds from 0.001 to ${MAX_TIMER_SECONDS}`);
  return n;
}

/** An `--effective-at`: Unix seconds, a positive integer the protocol can record (at most 2^53 - 1, docs/protocol.md). */
function unixSeconds(value: string): number {
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!isEffectiveAt(n)) throw new InvalidArgumentError('must be Unix seconds: a positive integer up to 9007199254740991');
  return n;
}

/** An acceptance id: 64 lower-case hexadecimal characters (spec §4.3), checked before anything is asked of the service. */
function acceptanceIdArgument(value: string): string {
  if (!/^[0-9a-f]{64}$/.test(value)) throw new InvalidArgumentError('must be an acceptance id: 64 lower-case hexadecimal characters');
  return value;
}

/** A `--api`: the service's base URL, http or https (its `/api` suffix may be given or not). */
function serviceUrl(value: string): string {
  const problem = httpUrlProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}

/** A TCP port: an integer from 1 to 65535 written in decimal. */
function tcpPort(value: string): number {
  if (!/^[1-9][0-9]{0,4}$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('must be a TCP port, 1 to 65535');
  return Number(value);
}

/**
 * A `--rpc` value: an http or https URL (a ledger's JSON-RPC endpoint), without `user:password@` (fetch cannot send
 * it). Such a value is refused without repeating it (exit 2): the password would land in terminals and CI logs.
 */
function httpUrl(value: string): string {
  if (URL.canParse(value) && (new URL(value).username !== '' || new URL(value).password !== '')) {
    const message = "option '--rpc <url>' must not carry user:password@ (the value is not repeated here); put the provider's key where the provider documents it";
    process.stderr.write(`error: ${message}\n`);
    exitCommandLine(message);
  }
  const problem = httpUrlProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}

/**
 * The ledger the writing commands sign for: `--rpc`, or the first public RPC URL the service announces. A `--rpc`
 * must serve the service's network (its genesis hash gives the service's `chainId`, spec §2.1), checked before
 * anything is signed: records landed on another network cost fees and are never seen by the service.
 * @throws Error when `--rpc` serves another network (the URL is not repeated: it may carry a provider's key).
 */
async function ledgerOf(opts: { rpc?: string; api?: string }): Promise<RpcLedger> {
  const service = new ApiClient(opts.api ?? DEFAULT_API);
  const network = await service.request<{ chainId: string; publicRpcUrls: string[] }>('GET', '/v1/network');
  const ledger = new RpcLedger({ url: opts.rpc ?? network.publicRpcUrls[0]! });
  if (opts.rpc) {
    const chainId = `solana:${(await ledger.getGenesisHash()).slice(0, 32)}`;
    if (chainId !== network.chainId) throw new Error(`--rpc serves another network (${chainId}) than the service at ${service.base} (${network.chainId}): nothing was signed or sent`);
  }
  return ledger;
}

/** Whether `text` is a JSON object of exactly `receipt` and `report`: the public receipt endpoint's answer (spec §2.5). */
function isReceiptAnswer(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).sort().join() === 'receipt,report';
  } catch {
    return false;
  }
}

/**
 * Refuses, before anything is signed, a key pair that is not the organization's authority: the service would refuse
 * what it signs (docs/protocol.md §7.2), after its record had landed on the ledger for good and paid its fee.
 * @throws Error naming both addresses.
 */
function requireAuthority(organization: OrganizationRecord, signer: string): void {
  if (organization.authority !== signer) {
    throw new Error(`key pair ${signer} is not the authority ${organization.authority} of organization ${organization.address}: nothing was signed or sent`);
  }
}

/**
 * The text of a document file, which must be UTF-8 (a BOM is allowed).
 * @throws UsageError naming the file when it cannot be read or is not valid UTF-8 (a Latin-1 or Windows-1252 file
 *   would otherwise be published with U+FFFD in place of its accented letters).
 */
async function readDocumentFile(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new UsageError(`${file} is not UTF-8 text: convert it first (for example: iconv -f latin1 -t utf-8 ${file} > converted.md)`);
  }
}

/** The `code` of an error as `--json` prints it: the API's error code, or what kind of failure it is. */
function errorCode(err: unknown): string {
  if (err instanceof ApiError) return err.code;
  if (err instanceof UsageError) return 'invalid_command_line';
  if (err instanceof ServiceUnreachableError) return err.code;
  if (err instanceof LedgerError) return `ledger_${err.code}`;
  // A ledger error said again in plain words (paidBy) keeps the ledger's code.
  if (err instanceof Error && err.cause instanceof LedgerError) return `ledger_${err.cause.code}`;
  // svc keygen onto an existing file: a key pair file is never overwritten.
  if ((err as NodeJS.ErrnoException | null)?.code === 'EEXIST') return 'file_exists';
  return 'failed';
}

/**
 * A command's action: an error it throws is printed as one `error: …` line on stderr and the process exits
 * `errorExitCode` (default 1), or 2 for a {@link UsageError}. With `--json`, stdout also gets one JSON document for
 * it, `{"error": {"code", "message", "status"?}}` (the API's error envelope, spec §7, with the HTTP status of an
 * API refusal), so that a script reading stdout always reads JSON.
 */
function run<A extends unknown[]>(action: (...args: A) => Promise<void>, errorExitCode = 1) {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (err) {
      const message = (err as Error).message;
      process.stderr.write(`error: ${message}\n`);
      const command = args[args.length - 1];
      if (command instanceof Command && command.opts().json) {
        const status = err instanceof ApiError ? { status: err.status } : {};
        process.stdout.write(`${JSON.stringify({ error: { code: errorCode(err), message, ...status } }, null, 2)}\n`);
      }
      process.exitCode = err instanceof UsageError ? 2 : errorExitCode;
    }
  };
}

/**
 * The key pair of a file named on the command line. A file others may read (mode bits beyond 0600) is used, with a
 * warning on stderr, as ssh warns of a loose private key file.
 * @throws UsageError when the file cannot be read or is not a key pair (Solana CLI format).
 */
async function keyPair(file: string): Promise<KeyPairSigner> {
  let signer: KeyPairSigner;
  try {
    signer = await loadKeypairSigner(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(code ? `cannot read the key pair file ${file}: ${code}` : (err as Error).message);
  }
  for (const loose of keyFilesReadableByOthers([file])) process.stderr.write(`warning: the key pair file ${loose} can be read by others: chmod 600 ${file}\n`);
  return signer;
}

/**
 * Sends a transaction `signer` pays for, saying in plain words when its key pair holds no lamports on this ledger
 * (the runtime's words are "no record of a prior credit").
 * @throws Error naming the fee payer when it cannot pay the fee; the ledger's error otherwise.
 */
async function paidBy<T>(signer: KeyPairSigner, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (err instanceof LedgerError && (err.code === LedgerErrorCode.AccountNotFound || err.code === LedgerErrorCode.InsufficientFunds) && !err.landed) {
      throw new Error(`key pair ${signer.address} cannot pay the transaction fee on this ledger (${err.code === LedgerErrorCode.AccountNotFound ? 'it holds no lamports' : 'too few lamports'}): fund it first (on a test network: svc airdrop --keypair <file>); nothing was recorded on the ledger`, { cause: err });
    }
    throw err;
  }
}

program
  .command('keygen')
  .description('create a key pair file (Solana CLI format: JSON array of 64 bytes, mode 0600)')
  .requiredOption('-o, --out <file>', 'where to write the key pair')
  .option('--json', 'machine-readable output')
  .action(
    run(async (opts: { out: string; json?: boolean }) => {
      const address = await generateKeypairFile(opts.out);
      new Output(!!opts.json).result({ address, file: path.resolve(opts.out) }, [`${address}  (${path.resolve(opts.out)})`]);
    }),
  );

program
  .command('airdrop')
  .description('request test lamports for a key pair (test networks only)')
  .requiredOption('-k, --keypair <file>', 'key pair file')
  .option('--sol <amount>', 'amount in SOL', positiveNumber, 1)
  .option('--rpc <url>', 'ledger JSON-RPC URL (default: announced by the service)', httpUrl)
  .option('--api <url>', 'service base URL', serviceUrl, DEFAULT_API)
  .option('--json', 'machine-readable output')
  .action(
    run(async (opts: { keypair: string; sol: number; rpc?: string; api: string; json?: boolean }) => {
      const signer = await keyPair(opts.keypair);
      const ledger = await ledgerOf(opts);
      const lamports = BigInt(Math.round(opts.sol * 1e9));
      const signature = await ledger.requestAirdrop(signer.address, lamports);
      const balance = await ledger.getBalance(signer.address);
      new Output(!!opts.json).result({ address: signer.address, signature, balanceLamports: balance.toString() }, [
        `airdropped ${opts.sol} SOL to ${signer.address}; balance ${Number(balance) / Number(LAMPORTS_PER_SOL)} SOL`,
      ]);
    }),
  );

const org = program.command('org').description('organizations');
org
  .command('create')
  .description('create an organization on the ledger (the key pair is its authority)')
  .requiredOption('-k, --keypair <file>', 'authority key pair file')
  .requiredOption('--name <name>', 'organization name (1 to 80 characters)')
  .option('--domain <domain>', 'domain the organization claims')
  .option('--rpc <url>', 'ledger JSON-RPC URL', httpUrl)
  .option('--api <url>', 'service base URL', serviceUrl, DEFAULT_API)
  .option('--json', 'machine-readable output')
  .action(
    run(async (opts: { keypair: string; name: string; domain?: string; rpc?: string; api: string; json?: boolean }) => {
      const authority = await keyPair(opts.keypair);
      const ledger = await ledgerOf(opts);
      const created = await paidBy(authority, () => createOrganizationOnLedger(ledger, authority, opts.name, opts.domain ?? null));
      new Output(!!opts.json).result(created, [`organization ${created.address}`, `transaction  ${created.signature}`]);
    }),
  );
org
  .command('sync')
  .description('have the service read an organization from the ledger (needs "svc login")')
  .requiredOption('--address <address>', 'organization address')
  .option('--api <url>', 'service base URL', serviceUrl, DEFAULT_API)
  .option('--session <file>', 'session file', DEFAULT_SESSION)
  .option('--json', 'machine-readable output')
  .action(
    run(async (opts: { address: string; api: string; session: string; json?: boolean }) => {
      const client = new ApiClient(opts.api).useSession(await loadSession(opts.session));
      const organization = await syncOrganization(client, opts.address);
      new Output(!!opts.json).result({ organization }, [`organization ${organization.address} synced as ${organization.id} (${organization.name})`]);
    }),
  );

const doc = program.command('doc').description('documents');
doc
  .command('create')
  .description('create a document of an organization on the ledger, then have the service sync it')
  .requiredOption('-k, --keypair <file>', 'organization authority key pair file')
  .requiredOption('--org <address>', 'organization address')
  .requiredOption('--slug <slug>', 'document slug (lower-case words joined by hyphens, at most 32 characters)')
  .requiredOption('--title <title>', 'document title')
  .option('--rpc <url>', 'ledger JSON-RPC URL', httpUrl)
  .option('--api <url>', 'service base URL', serviceUrl, DEFAULT_API)
  .option('--session <file>', 'session file', DEFAULT_SESSION)
  .option('--json', 'machine-readable output')
  .action(
    run(async (opts: { keypair: string; org: string; slug: string; title: string; rpc?: string; api: string; session: string; json?: boolean }) => {
      const authority = await keyPair(opts.keypair);
      const client = new ApiClient(opts.api).useSession(await loadSession(opts.session));
      const organization = await syncOrganization(client, opts.org);
      requireAuthority(organization, authority.address);
      const ledger = await ledgerOf(opts);
      const created = await paidBy(authority, () => createDocumentOnLedger(ledger, authority, opts.org, opts.slug, opts.title));
      const document = await syncDocument(client, organization.id, created.address);
      new Output(!!opts.json).result({ ...created, documentId: document.id }, [
        `document    ${created.address} (${opts.slug})`,
        `id          ${document.id}`,
        `transaction ${created.signature}`,
      ]);
    }),
  );

program
  .command('publish <file>')
  .description('publish a file as the next version of a document (draft, prepare, sign on the ledger, confirm)')
  .requiredOption('-k, --keypair <file>', 'organization authority key pair file')
  .requiredOption('--org <address>', 'organization address')
  .requiredOption('--document <address>', 'document address')
  .requiredOption('--label <label>', 'version label (1 to 16 characters)')
  .requiredOption('--title <title>', 'version title')
  .option('--effective-at <unix>', 'Unix seconds at which the version takes effect', unixSeconds)
  .option('--rpc <url>', 'ledger JSON-RPC URL', httpUrl)
  .option('--api <url>', 'service base URL', serviceUrl, DEFAULT_API)
  .option('--session <file>', 'session file', DEFAULT_SESSION)
  .option('--json', 'machine-readable output')
  .action(
    run(async (file: string, opts: { keypair: string; org: string; document: string; label: string; title: string; effectiveAt?: number; rpc?: string; api: string; session: string; json?: boolean }) => {
      const source = await readDocumentFile(file);
      const authority = await keyPair(opts.keypair);
      const client = new ApiClient(opts.api).useSession(await loadSession(opts.session));
      const organization = await syncOrganization(client, opts.org);
      requireAuthority(organization, authority.address);
      const ledger = await ledgerOf(opts);
      const document = await syncDocument(client, organization.id, opts.document);
      const { version, signature } = await paidBy(authority, () =>
        publishVersion(client, ledger, authority, {
          documentId: document.id,
          source,
          label: opts.label,
          title: opts.title,
          effectiveAt: opts.effectiveAt ?? null,
        }),
      );
      new Output(!!opts.json).result({ version, signature }, [
        `version ${version.number} (${version.label}) ${version.address}`,
        `content ${version.contentHash}`,
        `fingerprint ${version.fingerprint}`,
        `transaction ${signature}`,
      ]);
    }),
  );

program
  .command('login')
  .description('sign in to the dashboard with a wallet; keeps the session in a file')
  .requiredOption('-k, --keypair <file>', 'wallet key pair file')
  .option('--api <url>', 'service base URL', serviceUrl, DEFAULT_API)
  .option('--session <file>', 'session file', DEFAULT_SESSION)
  .option('--json', 'machine-readable output')
  .action(
    run(async (opts: { keypair: string; api: string; session: string; json?: boolean }) => {
      const wallet = await keyPair(opts.keypair);
      const session = await signIn(new ApiClient(opts.api), wallet);
      await saveSession(opts.session, session);
      new Output(!!opts.json).result({ address: session.address, expiresAt: session.expiresAt }, [
        `signed in as ${session.address} until ${session.expiresAt}`,
      ]);
    }),
  );

program
  .command('accept')
  .description('accept the current version of a document as a wallet signer (challenge, sign, submit)')
  .requiredOption('-k, --keypair <file>', 'signer key pair file')
  .requiredOption('--org <address>', 'organization address')
  .requiredOption('--document <address>', 'document address')
  .option('--origin <origin>', 'the site asking for the signature (default: the service\'s own origin)')
  .option('--api <url>', 'service base URL', serviceUrl, DEFAULT_API)
  .option('--json', 'machine-readable output')
  .action(
    run(async (opts: { keypair: string; org: string; document: string; origin?: string; api: string; json?: boolean }) => {
      const signer = await keyPair(opts.keypair);
      const client = new ApiClient(opts.api);
      const result = await acceptAsWallet(client, signer, { organization: opts.org, document: opts.document, origin: opts.origin ?? client.appOrigin });
      // A batched acceptance has no transaction of its own yet: its batch is anchored within about 10 s (spec §4.4).
      const lines =
        result.status === 'pending_batch'
          ? [
              `accepted: ${result.acceptanceId}`,
              'pending_batch: recorded; its batch is anchored on the ledger within about 10 s, then its receipt can be fetched',
              `fee paid by ${result.fee.payer}, shared with the batch`,
            ]
          : [
              `accepted: ${result.acceptanceId}`,
              `transaction ${result.transactionSignature} (slot ${result.slot}, ${result.status})`,
              `fee ${result.fee.lamports} lamports paid by ${result.fee.payer}`,
            ];
      new Output(!!opts.json).result(result, [...lines, `receipt ${result.receiptUrl}`]);
    }),
  );

program
  .command('receipt')
  .description('fetch the receipt of an acceptance (canonical JSON)')
  .argument('<acceptanceId>', 'acceptance id (64 hexadecimal characters)', acceptanceIdArgument)
  .option('-o, --out <file>', 'write the receipt to this file (default: stdout)')
  .option('--wait [seconds]', 'while the acceptance waits for its batch to be anchored (409 pending_batch), ask again every second, up to this many seconds (default 30)', positiveNumber)
  .option('--api <url>', 'service base URL', serviceUrl, DEFAULT_API)
  .option('--json', 'with --out: print the file written and the service\'s report as JSON (the receipt itself goes to the file)')
  .action(
    run(async (acceptanceId: string, opts: { out?: string; wait?: true | number; api: string; json?: boolean }) => {
      const client = new ApiClient(opts.api);
      // A batch is anchored within about 10 s of the acceptance (spec §4.4); until then the receipt is 409 pending_batch.
      const deadline = Date.now() + (opts.wait === undefined ? 0 : opts.wait === true ? 30 : opts.wait) * 1000;
      let answer: Awaited<ReturnType<typeof fetchReceipt>>;
      for (;;) {
        try {
          answer = await fetchReceipt(client, acceptanceId);
          break;
        } catch (err) {
          const left = deadline - Date.now();
          if (!(err instanceof ApiError && err.code === 'pending_batch') || left <= 0) throw err;
          await new Promise((r) => setTimeout(r, Math.min(1000, left)));
        }
      }
      const { receipt, report } = answer;
      const text = serializeReceipt(receipt);
      if (!opts.out) {
        process.stdout.write(`${text}\n`);
        return;
      }
      await fs.writeFile(opts.out, `${text}\n`);
      new Output(!!opts.json).result({ file: path.resolve(opts.out), report }, [`receipt written to ${opts.out} (service says ${report.verdict})`]);
    }),
  );

/** Whether the one warning of a report is that the acceptance transaction is not finalized yet. */
function onlyAwaitsFinality(report: VerificationReport): boolean {
  const warnings = report.checks.filter((c) => c.status === 'warn');
  return warnings.length === 1 && warnings[0]!.id === 'transaction.commitment';
}

program
  .command('verify <receipt>')
  .description('verify a receipt with nothing but the receipt and a ledger RPC endpoint; exits 0 when VALID, 1 for any other verdict, 2 when no verdict could be given (unreadable file, bad command line)')
  .requiredOption('--rpc <url>', 'any JSON-RPC endpoint of the receipt\'s network (required: the verifier trusts only the ledger you name)', httpUrl)
  .option('--wait-finalized [seconds]', 'while the only shortfall is that the transaction is not finalized yet, ask the ledger for the transaction status every 2 s, up to this many seconds (default 60), then verify again', positiveNumber)
  .option('--timeout <seconds>', 'give up on a ledger request that has no answer after this many seconds (the verdict is then INCONCLUSIVE)', timeoutSeconds, 30)
  .option('--json', 'machine-readable report')
  .action(
    run(async (file: string, opts: { rpc: string; json?: boolean; waitFinalized?: true | number; timeout: number }) => {
      let text: string;
      try {
        text = await fs.readFile(file, 'utf8');
      } catch (err) {
        throw new UsageError(`cannot read the receipt file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      // The verifier parses the text itself: a file that is not JSON is INVALID, `receipt.format` failing (docs/protocol.md §9).
      const receipt = text;
      const waitSeconds = opts.waitFinalized === undefined ? 0 : opts.waitFinalized === true ? 60 : opts.waitFinalized;
      // A public endpoint's request budget (HTTP 429) is waited out a few times rather than ending as INCONCLUSIVE.
      const ledger = new RpcLedger({ url: opts.rpc, rateLimitRetries: { attempts: 3, maxWaitMs: 30_000 }, requestTimeoutMs: Math.ceil(opts.timeout * 1000) });
      const deadline = Date.now() + waitSeconds * 1000;
      let report = await verifyReceipt(receipt, ledger);
      // Finality comes by itself (about 13 s on the embedded ledger); nothing else a wait could change is waited for.
      // The wait asks only for the transaction's status (one call every 2 s, well inside a public endpoint's request
      // budget), backs off on a refusal (an HTTP 429 among them), and verifies in full again once it is finalized.
      if (report.verdict === 'VALID_WITH_WARNINGS' && waitSeconds > 0 && onlyAwaitsFinality(report)) {
        const signature = toSignature((JSON.parse(receipt) as { transaction: { signature: string } }).transaction.signature);
        for (;;) {
          const left = deadline - Date.now();
          if (left <= 0) break;
          let pause = 2000;
          try {
            const [status] = await ledger.getSignatureStatuses([signature]);
            if (status?.confirmationStatus === 'finalized') break;
          } catch {
            pause = 5000;
          }
          await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - Date.now()))));
        }
        report = await verifyReceipt(receipt, ledger);
      }
      const mark = { pass: 'ok  ', fail: 'FAIL', warn: 'warn', skip: 'skip' } as Record<string, string>;
      new Output(!!opts.json).result(report, [
        `${report.verdict}: ${report.summary}`,
        ...report.checks.map((c) => `  ${mark[c.status] ?? c.status} ${c.label}${c.detail ? ` — ${c.detail}` : ''}`),
      ]);
      if (report.verdict !== 'VALID') process.exitCode = 1;
      // The public receipt endpoint's whole answer, saved as it came: the verdict stands (that file is no receipt), but
      // it tells of no tampering, so say what to verify instead.
      if (report.verdict === 'INVALID' && isReceiptAnswer(receipt)) {
        process.stderr.write(`hint: ${file} is the service's answer {receipt, report}: verify its "receipt" member alone (for example: jq .receipt ${file} > receipt.json)\n`);
      }
    }, 2),
  );

program
  .command('rebuild-projections [names...]')
  .description('rebuild read models from the event log (all, or the named ones); stop the service first when it uses the embedded read store')
  .option('--data-dir <dir>', 'data directory (default: $DATA_DIR or ./data)')
  .option('--skip-log-check', 'do not check the chain of the whole event log first (it takes about a minute per 3,000,000 events)')
  .option('--json', 'machine-readable output')
  .action(
    run(async (names: string[], opts: { dataDir?: string; json?: boolean; skipLogCheck?: boolean }) => {
      // Loaded when asked for: the stores and projections it runs are most of the service's code.
      const { rebuildProjections } = await import('./rebuild');
      const rebuilt = await rebuildProjections(names, opts.dataDir, { skipLogCheck: !!opts.skipLogCheck });
      new Output(!!opts.json).result({ rebuilt }, rebuilt.map((r) => `rebuilt ${r.projection} from the log through position ${r.throughPosition}`));
    }),
  );

program
  .command('demo')
  .description('start the service on its embedded default and run the whole evidence path on the real Terms of Service')
  .option('--data-dir <dir>', 'data directory (default: $DATA_DIR or ./data)')
  .addOption(new Option('--port <port>', 'port of the service (default: $PORT, else a free one)').env('PORT').argParser(tcpPort))
  .option('--keep-running', 'leave the service running at the end')
  .option('--json', 'machine-readable summary')
  .action(
    run(async (opts: { dataDir?: string; port?: number; keepRunning?: boolean; json?: boolean }) => {
      const { runDemo } = await import('./demo');
      const ok = await runDemo({
        dataDir: path.resolve(opts.dataDir ?? process.env.DATA_DIR ?? './data'),
        port: opts.port,
        keepRunning: !!opts.keepRunning,
        output: new Output(!!opts.json),
      });
      if (!ok) process.exitCode = 1;
    }),
  );

// `svc verify --wait-finalized receipt.json` and `svc receipt --wait <id>` read the word after the flag as the operand.
void program.parseAsync(operandsBeforeOptionalValues(process.argv, ['--wait', '--wait-finalized']));
