import { describe, expect, it } from 'vitest';
import { addressList, isAddressOrRange } from './address-ranges.js';

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
});
