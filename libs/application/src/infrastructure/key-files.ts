import type { AppConfig } from '@svc/config';
import { loadKeypairSigner } from '@svc/ledger';
import { readWebhookSecretsKey } from '../webhooks/webhook-secrets';

/**
 * Checks the service's key files that exist already, before anything starts: the relayer's and the attestor's key
 * pairs (Solana CLI format: a JSON array of 64 bytes, the public key matching the secret) and the webhook secrets key
 * (the base64 of 32 bytes). A file that does not exist is created at first start and passes. Run by the API's and
 * the worker's entry points, so that a key file of the wrong form stops the process with one line naming its
 * variable (README "Configuration"), as every other bad setting does.
 * @throws Error `invalid configuration: <VARIABLE>: <what is wrong with the file>`.
 */
export async function checkKeyFiles(config: AppConfig): Promise<void> {
  const problem = (variable: string, err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    return new Error(`invalid configuration: ${variable}: ${code ? `cannot read the key file: ${code}` : (err as Error).message}`);
  };
  for (const [variable, file] of [
    ['RELAYER_KEYPAIR', config.relayerKeypairPath],
    ['ATTESTOR_KEYPAIR', config.attestorKeypairPath],
  ] as const) {
    try {
      await loadKeypairSigner(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw problem(variable, err);
    }
  }
  if (config.webhooks.secretsKey === undefined) {
    try {
      readWebhookSecretsKey(config.webhooks.secretsKeyPath);
    } catch (err) {
      throw problem('WEBHOOK_SECRETS_KEY_FILE', err);
    }
  }
}
