import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createSecureContext, rootCertificates } from 'node:tls';
import { RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { LOOPBACK_RANGES, receiverAddressAllowed } from './public-address';

/** What one POST to a receiver came to. */
export interface WebhookResponse {
  /** The status answered, or null when none came within the time limit. */
  statusCode: number | null;
  /** Milliseconds from sending to the status line (or to the failure). */
  durationMs: number;
  /** Why no answer came (refused address, TLS, connection, time limit), or null. */
  error: string | null;
  /**
   * True when the attempt was cut short by this service shutting down, not by the receiver: it is no attempt to
   * record (the delivery is sent again, as the same attempt, after the restart).
   */
  interrupted?: boolean;
}

/** Longest error text recorded for an attempt. */
const MAX_ERROR = 300;

/**
 * Sends webhook deliveries (spec §6.1, §8): HTTPS POST through an agent that checks the address actually connected
 * to (after DNS resolution, IPv4 and IPv6) against the public-address rule (`request-filtering-agent`), so a host
 * that resolves to a private address at delivery time is refused even if it was public when added. Redirects are
 * not followed (any 3xx is a failed attempt); the answer must start within `WEBHOOK_TIMEOUT_MS` (10 s). Test
 * settings may allow loopback and trust a test CA (libs/config "WebhookConfig").
 */
@Injectable()
export class WebhookClient implements OnApplicationShutdown {
  private readonly agent: RequestFilteringHttpsAgent;
  private readonly timeoutMs: number;

  /** Why the project's public-address rule refuses `address` (stricter than the agent's ranges for IPv6), or null. */
  private readonly refusal: (address: string) => string | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { allowLoopback, testCaFile, timeoutMs } = config.webhooks;
    this.timeoutMs = timeoutMs;
    this.refusal = (address) => (receiverAddressAllowed(address, allowLoopback) ? null : `${address} is not a public address`);
    this.agent = new RequestFilteringHttpsAgent({
      keepAlive: false,
      // Built once: a `ca` list given as such is parsed again (every root certificate) for each connection.
      secureContext: testCaFile ? createSecureContext({ ca: [...rootCertificates, readFileSync(testCaFile, 'utf8')] }) : undefined,
      allowIPAddressList: allowLoopback ? [...LOOPBACK_RANGES] : [],
    });
  }

  /** Set when the service shuts down: requests still in flight are cut, and their answers say so. */
  private closing = false;

  onApplicationShutdown(): void {
    this.closing = true;
    this.agent.destroy();
  }

  /** POSTs `body` (sent as is: the signed bytes) to `url`; never rejects. */
  post(url: string, body: string, headers: Record<string, string>): Promise<WebhookResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      const finish = (result: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      // The agent checks every address with its own ranges; the project's rule (public-address.ts) is checked here
      // too, on an address in the URL and on every address DNS gives at connection time.
      const literal = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
      if (this.closing) {
        resolve({ statusCode: null, durationMs: 0, error: 'the service is shutting down', interrupted: true });
        return;
      }
      const refused = isIP(literal) !== 0 ? this.refusal(literal) : null;
      if (refused !== null) {
        resolve({ statusCode: null, durationMs: elapsed(), error: refused });
        return;
      }
      const req = request(url, {
        method: 'POST',
        agent: this.agent,
        lookup: this.lookup,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      });
      // Timers run before I/O in the event loop: when the process was busy past the deadline, an answer that came
      // in time may be waiting unread. One turn of I/O reads it before the attempt is called a timeout.
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (settled) return;
            finish({ statusCode: null, durationMs: elapsed(), error: `no answer within ${this.timeoutMs} ms` });
            req.destroy();
          }),
        this.timeoutMs,
      );
      req.on('response', (res) => {
        finish({ statusCode: res.statusCode ?? null, durationMs: elapsed(), error: null });
        res.resume();
        res.on('error', () => undefined);
        // The body is not read: only the status counts.
        setImmediate(() => res.destroy());
      });
      req.on('error', (err) => finish({ statusCode: null, durationMs: elapsed(), error: err.message.slice(0, MAX_ERROR), ...(this.closing ? { interrupted: true } : {}) }));
      req.end(body);
    });
  }

  /** `dns.lookup` that fails when any address found breaks the public-address rule. */
  private readonly lookup = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.map((a) => this.refusal(a.address)).find((r) => r !== null);
      if (refused) return callback(new Error(`${hostname}: ${refused}`), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname}: no address`), []);
      callback(null, first.address, first.family);
    });
  };
}
