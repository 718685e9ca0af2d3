import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { APP_CONFIG, type AppConfig } from '@svc/config';

/** Characters of a secret shown in lists: `whsec_` and four more. */
export const WEBHOOK_SECRET_PREFIX_LENGTH = 10;

/**
 * Webhook signing secrets (`whsec_` + 32 random bytes in base64url; spec §6.1). Signing needs the secret itself,
 * so it cannot be stored as a hash: it is sealed with the deployment's webhook key (AES-256-GCM, a fresh 96-bit IV
 * each time, the endpoint id as associated data so a sealed secret cannot be moved to another endpoint) and only
 * the sealed form reaches the log. The key is `WEBHOOK_SECRETS_KEY`, else a key file created with mode 0600 at
 * first start (docs/api.md "Webhooks").
 */
@Injectable()
export class WebhookSecrets {
  private readonly key: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = config.webhooks.secretsKey ?? loadOrCreateKey(config.webhooks.secretsKeyPath);
  }

  /** A new secret, its sealed form for endpoint `webhookId`, and its shown prefix. */
  create(webhookId: string): { secret: string; sealed: string; prefix: string } {
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    return { secret, sealed: this.seal(secret, webhookId), prefix: secret.slice(0, WEBHOOK_SECRET_PREFIX_LENGTH) };
  }

  /**
   * A 32-byte key for another purpose of the deployment (HKDF-SHA256, RFC 5869, of the secrets key, `purpose` as
   * its info), so that one kept key serves them all and none of them is the key that seals the secrets.
   */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), purpose, 32));
  }

  /**
   * A {@link Sealer} for another purpose of the deployment, with the key {@link deriveKey} gives for `purpose`: what
   * it seals, the webhook secrets' sealer cannot open, and the other way round.
   */
  sealer(purpose: string): Sealer {
    return new Sealer(this.deriveKey(purpose));
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
  seal(secret: string, webhookId: string): string {
    return sealText(this.key, secret, webhookId);
  }

  /**
   * The secret sealed by {@link seal} for `webhookId`.
   * @throws Error when the sealed text is malformed, sealed for another endpoint or with another key.
   */
  open(sealed: string, webhookId: string): string {
    return openText(this.key, sealed, webhookId);
  }
}

/** AES-256-GCM sealing of short texts under one key, each bound to its context (associated data). */
export class Sealer {
  constructor(private readonly key: Buffer) {}

  /** `v1.<iv>.<tag>.<ciphertext>` (base64url parts, a fresh 96-bit IV), opened only with the same `context`. */
  seal(text: string, context: string): string {
    return sealText(this.key, text, context);
  }

  /** @throws Error when the sealed text is malformed, or sealed in another context or with another key. */
  open(sealed: string, context: string): string {
    return openText(this.key, sealed, context);
  }
}

function sealText(key: Buffer, text: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

function openText(key: Buffer, sealed: string, context: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !ciphertext) throw new Error('not a sealed text');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * The 32-byte key a webhook secrets key file holds (its base64 on one line), or null when there is no such file.
 * @throws Error when the file cannot be read or does not hold the base64 of 32 bytes.
 */
export function readWebhookSecretsKey(file: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error(`webhook secrets key file ${file} does not hold the base64 of 32 bytes`);
  return key;
}

function loadOrCreateKey(file: string): Buffer {
  const kept = readWebhookSecretsKey(file);
  if (kept) return kept;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    // Another process created it first: use that one.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateKey(file);
    throw err;
  }
}
