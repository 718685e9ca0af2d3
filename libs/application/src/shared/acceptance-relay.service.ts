import { Inject, Injectable } from '@nestjs/common';
import type { RelayTransaction } from '@svc/domain';
import { base58ToBytes, encodeAcceptanceTransaction, type SyncSigner } from '@svc/evidence';
import { NetworkService } from '../infrastructure/network.service';
import { RELAYER_SIGNER } from '../infrastructure/tokens';

/** What the acceptance transaction carries (docs/protocol.md "Acceptance transaction"). */
export interface RelayInput {
  signer: string;
  /** Base58 Ed25519 signature of the signer over `message`. */
  signature: string;
  message: string;
  acceptanceId: string;
  versionAddress: string;
}

/**
 * Builds and signs acceptance transactions as the relayer (the fee payer): instruction 0 the Ed25519 precompile
 * over the signer's exact message, instruction 1 the acceptance memo. Signing is local (node:crypto); sending
 * and recording outcomes is the relay processor's (RelayAcceptanceWhenSubmitted).
 */
@Injectable()
export class AcceptanceRelay {
  constructor(
    private readonly network: NetworkService,
    @Inject(RELAYER_SIGNER) private readonly relayer: SyncSigner,
  ) {}

  /** Base58 address of the fee payer. */
  get feePayer(): string {
    return this.relayer.address;
  }

  /** Signs the acceptance transaction with a recent blockhash (cached for a few slots by NetworkService). */
  async sign(input: RelayInput): Promise<RelayTransaction> {
    const lifetime = await this.network.latestBlockhash();
    const tx = encodeAcceptanceTransaction({
      feePayer: this.relayer,
      signer: input.signer,
      signature: base58ToBytes(input.signature),
      message: input.message,
      acceptanceId: input.acceptanceId,
      versionAddress: input.versionAddress,
      lifetime,
    });
    return {
      transactionSignature: tx.signature,
      transactionWire: Buffer.from(tx.wire).toString('base64'),
      lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
    };
  }

  /** Signs anew after the blockhash expired unlanded. */
  async resign(input: RelayInput): Promise<RelayTransaction> {
    this.network.invalidateBlockhash();
    return this.sign(input);
  }
}
