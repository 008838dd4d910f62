import type { Store } from '../store/store.js';
import { type Dictionary, encodeValue, wireAttribute } from './dictionary.js';

/** The policy category that holds a group's RADIUS reply attributes. */
export const RADIUS_POLICY_CATEGORY = 'RADIUS';

/** One attribute as the operator wrote it: a dictionary name and its value as text. */
export type ReplyAttribute = [name: string, value: string];

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

/** The stored attributes of a policy; whatever is not a list of name-value pairs is none. */
export function storedReplyAttributes(options: Record<string, unknown> | undefined): ReplyAttribute[] {
  const stored = options?.replyAttributes;
  if (!Array.isArray(stored)) return [];
  return stored.filter(
    (entry): entry is ReplyAttribute =>
      Array.isArray(entry) &&
      entry.length === 2 &&
      typeof entry[0] === 'string' &&
      typeof entry[1] === 'string',
  );
}

/**
 * What an Access-Accept for the user carries: the reply attributes of their highest-priority
 * group that has a RADIUS policy. One the dictionary no longer knows (a file removed from
 * DEA_RADIUS_DICTIONARY) is left out and reported.
 */
export async function replyAttributesOf(
  store: Store,
  dictionary: Dictionary,
  userId: string,
  report: (problem: string) => void,
): Promise<[number, Buffer][]> {
  const wire: [number, Buffer][] = [];
  for (const [name, value] of storedReplyAttributes(
    await store.groups.findPolicyOfUser(userId, RADIUS_POLICY_CATEGORY),
  )) {
    const attribute = dictionary.find(name);
    const encoded = attribute === undefined ? `${name} is in no dictionary` : encodeValue(attribute, value);
    if (typeof encoded === 'string' || attribute === undefined)
      report(`${encoded as string}; left out of the Access-Accept`);
    else wire.push(wireAttribute(attribute, encoded));
  }
  return wire;
}
