import { describe, expect, it } from 'vitest';
import {
  addressList,
  isAddressOrRange,
  publicAddressesCovered,
  tooWideForProxies,
} from './address-ranges.js';

describe('address ranges', () => {
  it('knows addresses, CIDR ranges and the named ranges', () => {
    for (const entry of ['10.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1', 'loopback', 'linklocal', 'uniquelocal'])
      expect(isAddressOrRange(entry), entry).toBe(true);
    for (const entry of ['host', '10.0.0.0/33', '10.0.0.0/8/1', '', 'fd00::/129'])
      expect(isAddressOrRange(entry), entry).toBe(false);
  });

  it('answers whether an address is in the list, IPv4 seen on a dual-stack socket too', () => {
    const inList = addressList(['10.1.0.0/16', '192.0.2.7', 'loopback']);
    expect(['10.1.2.3', '192.0.2.7', '127.0.0.1', '::1', '::ffff:10.1.9.9'].map(inList)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['10.2.0.1', '192.0.2.8', '::2'].map(inList)).toEqual([false, false, false]);
    expect(addressList([])('127.0.0.1')).toBe(false);
  });

  it('counts the public addresses a list covers, overlaps once, private ranges and mapped IPv4 apart', () => {
    expect(publicAddressesCovered(['uniquelocal', 'loopback', 'linklocal', '10.1.0.0/16'])).toEqual({
      ipv4: 0n,
      ipv6: 0n,
    });
    expect(publicAddressesCovered(['203.0.113.0/24', '203.0.113.7', '203.0.113.128/25'])).toEqual({
      ipv4: 256n,
      ipv6: 0n,
    });
    // 10.0.0.0/7 is 10.0.0.0/8 (private) and 11.0.0.0/8 (public).
    expect(publicAddressesCovered(['10.0.0.0/7']).ipv4).toBe(2n ** 24n);
    expect(publicAddressesCovered(['2001:db8::/32', '2001:db8:1::/48']).ipv6).toBe(2n ** 96n);
    expect(publicAddressesCovered(['::ffff:0:0/96'])).toEqual({
      ipv4: 2n ** 32n - 2n ** 24n * 2n - 2n ** 20n - 2n ** 16n * 2n,
      ipv6: 0n,
    });
  });

  it.each([
    ['0.0.0.0/0'],
    ['0.0.0.0/1,128.0.0.0/1'],
    ['1.0.0.0/8,2.0.0.0/8'],
    ['0.0.0.0/2,64.0.0.0/2,128.0.0.0/2,192.0.0.0/2'],
    ['::/0'],
    ['::/1,8000::/1'],
    ['2000::/3'],
    ['2001:db8::/31'],
    ['::ffff:0:0/96'],
    ['::ffff:0.0.0.0/97,::ffff:128.0.0.0/97'],
  ])('refuses trusting %s as proxies, saying how much it covers', (list) => {
    expect(tooWideForProxies(list.split(','))).toMatch(/^together they cover .*(a \/8|a \/32)/);
  });

  it.each([
    ['10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,127.0.0.0/8,169.254.0.0/16,fc00::/7,fe80::/10,::1'],
    ['uniquelocal,loopback,linklocal'],
    ['11.0.0.0/8'],
    ['10.0.0.0/7'],
    ['173.245.48.0/20,103.21.244.0/22,104.16.0.0/13,2400:cb00::/32'],
    ['2001:db8::/32'],
    ['203.0.113.7,2001:db8::7'],
  ])('accepts trusting %s as proxies', (list) => {
    expect(tooWideForProxies(list.split(','))).toBeUndefined();
  });
});
