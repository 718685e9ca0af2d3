import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { KeyPairSigner } from '@solana/kit';
import { APP_CONFIG, type AppConfig } from '@svc/config';
import { LEDGER, MEMO_PROGRAM_ADDRESS, type LatestBlockhash, type Ledger } from '@svc/ledger';
import { RELAYER } from './tokens';

/** Network facts announced by `GET /v1/network` (spec §2.1). */
export interface NetworkInfo {
  cluster: string;
  chainId: string;
  label: string;
  walletChain: string;
  programId: string;
  relayer: string;
  attestor: string;
  hostedAcceptDomain: string;
  publicRpcUrls: string[];
  contentMirror: string;
}

/** Genesis hashes of the public Solana clusters, by the Wallet Standard chain that names each. */
const PUBLIC_CLUSTER_CHAINS: ReadonlyMap<string, string> = new Map([
  ['5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d', 'solana:mainnet'],
  ['EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcNWGcWzvo', 'solana:devnet'],
  ['4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY', 'solana:testnet'],
]);

/**
 * The Wallet Standard chain a wallet lists for the network of `genesisHash` (spec §2.1 walletChain, "for wallet
 * discovery"): `solana:mainnet`, `solana:devnet` or `solana:testnet` for the public clusters, recognised by their
 * genesis hash; `solana:localnet` for any other ledger (the embedded one, a private cluster), the one chain the
 * standard has for those. Signed messages carry the exact `chainId` instead (docs/api.md "Dashboard sign-in").
 */
export function walletChainOf(genesisHash: string): string {
  return PUBLIC_CLUSTER_CHAINS.get(genesisHash) ?? 'solana:localnet';
}

/**
 * The ledger network the service records on: chain id (CAIP-2, `solana:` + the first 32 characters of the
 * genesis hash), the relayer (fee payer), and a short-lived cache of the latest blockhash so that the
 * acceptance hot path does not ask the ledger for one on every request.
 */
@Injectable()
export class NetworkService implements OnApplicationBootstrap {
  private readonly logger = new Logger('NetworkService');
  private info!: NetworkInfo;
  private blockhash: { value: LatestBlockhash; fetchedAt: number } | null = null;
  private blockhashInFlight: Promise<LatestBlockhash> | null = null;
  /** Seconds a cached blockhash is reused; far below its ~60 s validity. */
  private static readonly BLOCKHASH_REUSE_MS = 5_000;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LEDGER) private readonly ledger: Ledger,
    @Inject(RELAYER) private readonly relayer: KeyPairSigner,
    @Inject('ATTESTOR_ADDRESS') private readonly attestor: string,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const genesis = await this.ledger.getGenesisHash();
    const chainId = `solana:${genesis.slice(0, 32)}`;
    this.info = {
      cluster: this.config.cluster,
      chainId,
      label: this.config.networkLabel,
      walletChain: walletChainOf(genesis),
      programId: MEMO_PROGRAM_ADDRESS,
      relayer: this.relayer.address,
      attestor: this.attestor,
      hostedAcceptDomain: new URL(this.config.publicBaseUrl).host,
      publicRpcUrls: this.config.publicRpcUrls,
      contentMirror: `${this.config.publicBaseUrl}/api/v1/public/content/`,
    };
    await this.ensureRelayerFunded();
  }

  get network(): NetworkInfo {
    return this.info;
  }

  get chainId(): string {
    return this.info.chainId;
  }

  /** A recent blockhash (cached for a few seconds; concurrent callers share one request). */
  async latestBlockhash(): Promise<LatestBlockhash> {
    const cached = this.blockhash;
    if (cached && Date.now() - cached.fetchedAt < NetworkService.BLOCKHASH_REUSE_MS) return cached.value;
    if (!this.blockhashInFlight) {
      this.blockhashInFlight = this.ledger
        .getLatestBlockhash()
        .then((value) => {
          this.blockhash = { value, fetchedAt: Date.now() };
          return value;
        })
        .finally(() => {
          this.blockhashInFlight = null;
        });
    }
    return this.blockhashInFlight;
  }

  /** Forgets the cached blockhash (after the ledger refused it as expired). */
  invalidateBlockhash(): void {
    this.blockhash = null;
  }

  /** On test networks, tops the relayer up by airdrop when it runs low. */
  async ensureRelayerFunded(): Promise<void> {
    const balance = await this.ledger.getBalance(this.relayer.address);
    if (balance >= this.config.relayerMinBalanceLamports) return;
    try {
      await this.ledger.requestAirdrop(this.relayer.address, this.config.relayerMinBalanceLamports * 10n);
      this.logger.log(`relayer ${this.relayer.address} funded by airdrop`);
    } catch (err) {
      this.logger.warn(`relayer ${this.relayer.address} holds ${balance} lamports and the airdrop failed: ${(err as Error).message}`);
    }
  }
}
