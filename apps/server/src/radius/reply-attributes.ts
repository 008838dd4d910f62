import { type Dictionary, encodeValue, wireAttribute } from './dictionary.js';
import type { ReplyAttribute } from './radius-policy.js';

/**
 * `NAME=VALUE` lines checked against the dictionary (name known, value of its type); answers the
 * attributes as stored, or the problems, each naming the attribute.
 */
export function checkReplyAttributes(
  dictionary: Dictionary,
  lines: readonly string[],
): { attributes: ReplyAttribute[]; problems: string[] } {
  const attributes: ReplyAttribute[] = [];
  const problems: string[] = [];
  for (const line of lines) {
    const separator = line.indexOf('=');
    const name = separator === -1 ? line : line.slice(0, separator).trim();
    const attribute = dictionary.find(name);
    if (separator === -1) {
      problems.push(`"${line}" must read NAME=VALUE (Filter-Id=vpn-staff)`);
    } else if (attribute === undefined) {
      problems.push(`${name} is in no dictionary (built in, or DEA_RADIUS_DICTIONARY)`);
    } else {
      const value = line.slice(separator + 1);
      const encoded = encodeValue(attribute, value);
      if (typeof encoded === 'string') problems.push(encoded);
      else attributes.push([attribute.name, value]);
    }
  }
  return { attributes, problems };
}

/**
 * Stored reply attributes as an Access-Accept carries them. One the dictionary no longer knows (a
 * file removed from DEA_RADIUS_DICTIONARY) is left out and reported.
 */
export function replyAttributesOf(
  attributes: readonly ReplyAttribute[],
  dictionary: Dictionary,
  report: (problem: string) => void,
): [number, Buffer][] {
  const wire: [number, Buffer][] = [];
  for (const [name, value] of attributes) {
    const attribute = dictionary.find(name);
    const encoded = attribute === undefined ? `${name} is in no dictionary` : encodeValue(attribute, value);
    if (typeof encoded === 'string' || attribute === undefined)
      report(`${encoded as string}; left out of the Access-Accept`);
    else wire.push(wireAttribute(attribute, encoded));
  }
  return wire;
}
