import { isIPv4 } from 'node:net';

/** The value types a reply attribute may have here (FreeRADIUS's names). */
export type AttributeValueType = 'string' | 'octets' | 'integer' | 'ipaddr';

export interface DictionaryAttribute {
  name: string;
  /** The attribute's number; within its vendor's space for a vendor-specific one. */
  code: number;
  type: AttributeValueType;
  /** The vendor's IANA number for a vendor-specific attribute (carried in Vendor-Specific, 26). */
  vendor?: number;
}

const standard = (name: string, code: number, type: AttributeValueType): DictionaryAttribute => ({
  name,
  code,
  type,
});
const vendorSpecific = (vendor: number, name: string, code: number): DictionaryAttribute => ({
  name,
  code,
  type: 'string',
  vendor,
});

/**
 * The attributes an Access-Accept usually carries to configure a VPN session, as FreeRADIUS's
 * dictionaries name them (RFC 2865, RFC 2869, and the vendors of common VPN gateways). More come
 * from DEA_RADIUS_DICTIONARY.
 */
export const BUILT_IN_ATTRIBUTES: readonly DictionaryAttribute[] = [
  standard('Framed-IP-Address', 8, 'ipaddr'),
  standard('Framed-IP-Netmask', 9, 'ipaddr'),
  standard('Filter-Id', 11, 'string'),
  standard('Reply-Message', 18, 'string'),
  standard('Class', 25, 'octets'),
  standard('Session-Timeout', 27, 'integer'),
  standard('Idle-Timeout', 28, 'integer'),
  standard('Acct-Interim-Interval', 85, 'integer'),
  standard('Framed-Pool', 88, 'string'),
  vendorSpecific(9, 'Cisco-AVPair', 1),
  vendorSpecific(2636, 'Juniper-Local-User-Name', 1),
  vendorSpecific(12356, 'Fortinet-Group-Name', 1),
  vendorSpecific(12356, 'Fortinet-Access-Profile', 6),
  vendorSpecific(14823, 'Aruba-User-Role', 1),
  vendorSpecific(25461, 'PaloAlto-Admin-Role', 1),
  vendorSpecific(25461, 'PaloAlto-User-Group', 5),
];

const TYPES = new Set<string>(['string', 'octets', 'integer', 'ipaddr']);

/**
 * Reads dictionary files in FreeRADIUS's format (VENDOR, BEGIN-VENDOR/END-VENDOR, ATTRIBUTE with
 * an optional vendor): attributes of the four types kept here; others (and $INCLUDE, VALUE,
 * vendors of another format) are passed over. Problems name the file and line.
 */
export function parseDictionary(file: string, text: string, problems: string[]): DictionaryAttribute[] {
  const vendors = new Map<string, number>();
  const attributes: DictionaryAttribute[] = [];
  let current: number | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') return;
    const [keyword, ...fields] = line.split(/\s+/);
    const where = `${file} line ${index + 1}`;
    if (keyword === 'VENDOR') {
      const [name, number, format] = fields;
      if (name === undefined || !/^\d+$/.test(number ?? ''))
        problems.push(`${where}: VENDOR needs a name and a number`);
      else if (format === undefined || format === 'format=1,1') vendors.set(name, Number(number));
    } else if (keyword === 'BEGIN-VENDOR') {
      current = vendors.get(fields[0] ?? '');
    } else if (keyword === 'END-VENDOR') {
      current = undefined;
    } else if (keyword === 'ATTRIBUTE') {
      const [name, code, type, vendorName] = fields;
      if (name === undefined || !/^\d+$/.test(code ?? '') || type === undefined) {
        problems.push(`${where}: ATTRIBUTE needs a name, a number and a type`);
        return;
      }
      if (!TYPES.has(type)) return;
      const vendor = vendorName === undefined || vendorName.includes('=') ? current : vendors.get(vendorName);
      attributes.push({
        name,
        code: Number(code),
        type: type as AttributeValueType,
        ...(vendor !== undefined && { vendor }),
      });
    }
  });
  return attributes;
}

/** Finds attributes by name, case-insensitively, as FreeRADIUS does. */
export class Dictionary {
  private readonly byName = new Map<string, DictionaryAttribute>();

  constructor(attributes: readonly DictionaryAttribute[]) {
    for (const attribute of attributes) this.byName.set(attribute.name.toLowerCase(), attribute);
  }

  find(name: string): DictionaryAttribute | undefined {
    return this.byName.get(name.toLowerCase());
  }
}

/** A value as text turned into the attribute's bytes; a reason when it does not fit the type. */
export function encodeValue(attribute: DictionaryAttribute, text: string): Buffer | string {
  // Vendor-Specific carries 6 bytes of its own (vendor, type, length) inside 253.
  const room = attribute.vendor === undefined ? 253 : 247;
  switch (attribute.type) {
    case 'integer': {
      if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffffffff)
        return `${attribute.name} takes a whole number from 0 to 4294967295, not "${text}"`;
      const value = Buffer.alloc(4);
      value.writeUInt32BE(Number(text));
      return value;
    }
    case 'ipaddr':
      return isIPv4(text)
        ? Buffer.from(text.split('.').map(Number))
        : `${attribute.name} takes an IPv4 address, not "${text}"`;
    case 'octets': {
      const value = /^0x([0-9a-f]{2})+$/i.test(text)
        ? Buffer.from(text.slice(2), 'hex')
        : Buffer.from(text, 'utf8');
      return value.length === 0 || value.length > room ? `${attribute.name} takes 1 to ${room} bytes` : value;
    }
    default: {
      const value = Buffer.from(text, 'utf8');
      return value.length === 0 || value.length > room
        ? `${attribute.name} takes 1 to ${room} bytes of text`
        : value;
    }
  }
}

/** The attribute as it goes into a packet: its own type, or Vendor-Specific (26) around it. */
export function wireAttribute(attribute: DictionaryAttribute, value: Buffer): [number, Buffer] {
  if (attribute.vendor === undefined) return [attribute.code, value];
  const header = Buffer.alloc(6);
  header.writeUInt32BE(attribute.vendor, 0);
  header.writeUInt8(attribute.code, 4);
  header.writeUInt8(value.length + 2, 5);
  return [26, Buffer.concat([header, value])];
}
