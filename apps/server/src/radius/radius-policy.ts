/** The policy category that holds a group's RADIUS settings. */
export const RADIUS_POLICY_CATEGORY = 'RADIUS';

/** One attribute as the operator wrote it: a dictionary name and its value as text. */
export type ReplyAttribute = [name: string, value: string];

/**
 * What RADIUS expects in User-Password: the code alone (`off`), or the user's password followed
 * by the code, directly (`concatenated`) or with a separator between them (`separator:<text>`).
 */
export type PasswordAndCode =
  | { kind: 'off' }
  | { kind: 'concatenated' }
  | { kind: 'separated'; separator: string };

export interface RadiusPolicy {
  replyAttributes: ReplyAttribute[];
  passwordAndCode: PasswordAndCode;
}

/** `off`, `concatenated` or `separator:<1 to 8 characters>`; a reason when it is none of them. */
export function parsePasswordAndCode(text: string): PasswordAndCode | string {
  if (text === 'off') return { kind: 'off' };
  if (text === 'concatenated') return { kind: 'concatenated' };
  const separator = /^separator:(.{1,8})$/u.exec(text)?.[1];
  if (separator !== undefined) return { kind: 'separated', separator };
  return `--password-and-code must be off, concatenated or separator:<1 to 8 characters>, not "${text}"`;
}

export const formatPasswordAndCode = (mode: PasswordAndCode): string =>
  mode.kind === 'separated' ? `separator:${mode.separator}` : mode.kind;

/** A group's stored RADIUS policy; whatever is not valid in it counts as not set. */
export function radiusPolicyOf(options: Record<string, unknown> | undefined): RadiusPolicy {
  const stored = options?.replyAttributes;
  const replyAttributes = Array.isArray(stored)
    ? stored.filter(
        (entry): entry is ReplyAttribute =>
          Array.isArray(entry) &&
          entry.length === 2 &&
          typeof entry[0] === 'string' &&
          typeof entry[1] === 'string',
      )
    : [];
  const mode =
    typeof options?.passwordAndCode === 'string' ? parsePasswordAndCode(options.passwordAndCode) : undefined;
  return {
    replyAttributes,
    passwordAndCode: mode === undefined || typeof mode === 'string' ? { kind: 'off' } : mode,
  };
}

/**
 * The password and the code in one User-Password as the policy says; undefined when the field
 * cannot hold both (nothing before the code, no separator). With `concatenated` the code is the
 * last `codeLength` characters, as the policy issues it (typed without spaces or dashes).
 */
export function splitPasswordAndCode(
  field: string,
  mode: Exclude<PasswordAndCode, { kind: 'off' }>,
  codeLength: number,
): { password: string; code: string } | undefined {
  if (mode.kind === 'concatenated') {
    const characters = [...field];
    if (characters.length <= codeLength) return undefined;
    return {
      password: characters.slice(0, -codeLength).join(''),
      code: characters.slice(-codeLength).join(''),
    };
  }
  const at = field.lastIndexOf(mode.separator);
  if (at <= 0 || at + mode.separator.length >= field.length) return undefined;
  return { password: field.slice(0, at), code: field.slice(at + mode.separator.length) };
}
