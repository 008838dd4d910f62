import { BlockList, isIP } from 'node:net';

/** The ranges proxy-addr (Fastify's trustProxy) knows by name, as CIDR ranges. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** An IP address, a CIDR range (10.0.0.0/8) or one of loopback, linklocal, uniquelocal. */
export function isAddressOrRange(entry: string): boolean {
  if (Object.hasOwn(NAMED_RANGES, entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

/** The entries (each passing isAddressOrRange) as a list that answers whether an address is in it. */
export function addressList(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries.flatMap((each) => NAMED_RANGES[each] ?? [each])) {
    const [address = '', bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (address) => {
    // An IPv4 client on a dual-stack socket is seen as ::ffff:a.b.c.d.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const plain = mapped ?? address;
    return list.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
  };
}
