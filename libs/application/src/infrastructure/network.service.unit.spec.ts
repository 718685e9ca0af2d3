import { isSolanaChain } from '@solana/wallet-standard-chains';
import { walletChainOf } from './network.service';

describe('walletChainOf (spec §2.1 walletChain)', () => {
  it('names the public clusters by their genesis hash, as wallets list them', () => {
    expect(walletChainOf('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d')).toBe('solana:mainnet');
    expect(walletChainOf('EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcNWGcWzvo')).toBe('solana:devnet');
    expect(walletChainOf('4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY')).toBe('solana:testnet');
  });

  it('names any other ledger solana:localnet, and every answer is a Wallet Standard Solana chain', () => {
    expect(walletChainOf('Azk8GcoWpFJS5gNoFrfoKuWgDEWUX1EZxxxxxxxxxxxx')).toBe('solana:localnet');
    for (const genesis of ['5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d', 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcNWGcWzvo', '11111111111111111111111111111111']) {
      expect(isSolanaChain(walletChainOf(genesis) as `${string}:${string}`)).toBe(true);
    }
  });
});
