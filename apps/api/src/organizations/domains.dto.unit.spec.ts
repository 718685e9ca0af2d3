import { isVerifiableDomain } from './domains.dto';

describe('isVerifiableDomain (domain verifications, spec §4.10)', () => {
  it('takes DNS host names with a top-level domain, internationalized ones in punycode, in any letter case', () => {
    for (const domain of ['shop.example.com', 'Shop.Example.COM', 'xn--e1afmkfd.xn--p1ai', 'xn--bcher-kva.de', 'a-b.example']) expect([domain, isVerifiableDomain(domain)]).toEqual([domain, true]);
  });

  it('refuses what the organization record on the ledger cannot hold: Unicode names, ports, trailing dots, single labels', () => {
    for (const domain of ['пример.рф', 'bücher.de', 'exämple.com', 'shop.example.com:443', 'shop.example.com.', 'localhost', `${'a'.repeat(41)}.example`]) {
      expect([domain, isVerifiableDomain(domain)]).toEqual([domain, false]);
    }
  });
});
