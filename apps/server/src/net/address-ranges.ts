import { BlockList, isIP } from 'node:net';

/** The ranges proxy-addr (Fastify's trustProxy) knows by name, as CIDR ranges. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * An address a server can listen on: an IP address (0.0.0.0 and :: for every one) or a host name
 * of letters, digits and hyphens (localhost), never something that only looks like an address
 * (999.1.1.1, 127.0.0.1:8080, http://host).
 */
export function isListenAddress(text: string): boolean {
  if (isIP(text) !== 0) return true;
  if (/^[0-9.]+$/.test(text) || text.length > 253) return false;
  return /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(
    text,
  );
}

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

/** How many addresses of each family a list of trusted proxies may cover outside private ranges. */
export const MOST_PUBLIC_ADDRESSES = { ipv4: 2n ** 24n, ipv6: 2n ** 96n } as const;

/** [first, last] addresses of a range, both included. */
type Span = readonly [bigint, bigint];

const IPV4_SPACE = 2n ** 32n;
/** ::ffff:0:0/96, where an IPv6 socket sees IPv4 clients. */
const MAPPED_START = 0xffffn << 32n;

function ipv4Number(address: string): bigint {
  return address.split('.').reduce((sum, part) => (sum << 8n) + BigInt(Number(part)), 0n);
}

function ipv6Number(address: string): bigint {
  const plain = address.replace(/%.*$/, '');
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(plain)?.[1];
  const hex =
    tail === undefined
      ? plain
      : plain.slice(0, -tail.length) +
        ((ipv4Number(tail) >> 16n).toString(16) + ':' + (ipv4Number(tail) & 0xffffn).toString(16));
  const [head = '', rest] = hex.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups =
    rest === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((sum, group) => (sum << 16n) + BigInt(parseInt(group, 16)), 0n);
}

/** The span of one entry (passing isAddressOrRange and not a name), and its family. */
function spanOf(entry: string): { family: 'ipv4' | 'ipv6'; span: Span } {
  const [address = '', bits] = entry.split('/');
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  const width = family === 'ipv6' ? 128n : 32n;
  const host = width - BigInt(bits === undefined ? Number(width) : Number(bits));
  const number = family === 'ipv6' ? ipv6Number(address) : ipv4Number(address);
  const first = (number >> host) << host;
  return { family, span: [first, first + (1n << host) - 1n] };
}

/** How many addresses the spans cover together (overlaps counted once) outside the excluded spans. */
function coveredOutside(spans: readonly Span[], excluded: readonly Span[]): bigint {
  const merged: [bigint, bigint][] = [];
  for (const [first, last] of [...spans].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    const previous = merged.at(-1);
    if (previous !== undefined && first <= previous[1] + 1n)
      previous[1] = last > previous[1] ? last : previous[1];
    else merged.push([first, last]);
  }
  let count = 0n;
  for (const [first, last] of merged) {
    count += last - first + 1n;
    for (const [from, to] of excluded) {
      const low = first > from ? first : from;
      const high = last < to ? last : to;
      if (low <= high) count -= high - low + 1n;
    }
  }
  return count;
}

/** The private ranges of each family (loopback, link-local, unique local), which may be trusted whole. */
const PRIVATE_SPANS = {
  ipv4: [...NAMED_RANGES.loopback!, ...NAMED_RANGES.linklocal!, ...NAMED_RANGES.uniquelocal!]
    .filter((range) => !range.includes(':'))
    .map((range) => spanOf(range).span),
  ipv6: [...NAMED_RANGES.loopback!, ...NAMED_RANGES.linklocal!, ...NAMED_RANGES.uniquelocal!]
    .filter((range) => range.includes(':'))
    .map((range) => spanOf(range).span),
};

/**
 * How many public addresses (outside loopback, link-local and unique local ranges) the entries
 * (each passing isAddressOrRange) cover together, per family; an IPv4-mapped IPv6 range
 * (::ffff:0:0/96) counts as the IPv4 addresses it maps.
 */
export function publicAddressesCovered(entries: readonly string[]): { ipv4: bigint; ipv6: bigint } {
  const spans: { ipv4: Span[]; ipv6: Span[] } = { ipv4: [], ipv6: [] };
  for (const entry of entries.flatMap((each) => NAMED_RANGES[each] ?? [each])) {
    const { family, span } = spanOf(entry);
    spans[family].push(span);
    if (family === 'ipv4') continue;
    const low = span[0] > MAPPED_START ? span[0] : MAPPED_START;
    const high = span[1] < MAPPED_START + IPV4_SPACE - 1n ? span[1] : MAPPED_START + IPV4_SPACE - 1n;
    if (low <= high) spans.ipv4.push([low - MAPPED_START, high - MAPPED_START]);
  }
  return {
    ipv4: coveredOutside(spans.ipv4, PRIVATE_SPANS.ipv4),
    ipv6: coveredOutside(spans.ipv6, [...PRIVATE_SPANS.ipv6, [MAPPED_START, MAPPED_START + IPV4_SPACE - 1n]]),
  };
}

/**
 * Why a list of trusted proxies covers too much of the address space (more public addresses than
 * MOST_PUBLIC_ADDRESSES: a /8 of IPv4, a /32 of IPv6), or undefined when it does not.
 */
export function tooWideForProxies(entries: readonly string[]): string | undefined {
  const covered = publicAddressesCovered(entries);
  const over = (['ipv4', 'ipv6'] as const).filter(
    (family) => covered[family] > MOST_PUBLIC_ADDRESSES[family],
  );
  if (over.length === 0) return undefined;
  return over
    .map((family) =>
      family === 'ipv4'
        ? `together they cover ${covered.ipv4.toLocaleString('en')} public IPv4 addresses, more than a /8 (${MOST_PUBLIC_ADDRESSES.ipv4.toLocaleString('en')})`
        : `together they cover more public IPv6 addresses than a /32`,
    )
    .join(' and ');
}
