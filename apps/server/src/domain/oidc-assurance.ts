/**
 * What an ID token of the organisation's OpenID provider says about how the person authenticated,
 * read by one rule for every door that takes it (the console's sign-in, console-oidc.ts; the
 * registration of channels, registration-oidc.ts; ADR 0033).
 */

/** A factor class (NIST SP 800-63, RFC 8176 section 1): something known, held, or of the body. */
export type FactorClass = 'knowledge' | 'possession' | 'inherence';

/**
 * The methods of the RFC 8176 registry that are an authentication factor, by their class. A
 * method outside it (geo, rba, user, wia: a location, a risk score, a presence test, a Windows
 * sign-in of whatever kind) or spelt otherwise (amr values are case-sensitive: PWD is not pwd)
 * is no factor.
 */
const FACTOR_CLASS_OF_METHOD: Readonly<Record<string, FactorClass>> = {
  pwd: 'knowledge',
  pin: 'knowledge',
  kba: 'knowledge',
  otp: 'possession',
  hwk: 'possession',
  swk: 'possession',
  sc: 'possession',
  sms: 'possession',
  tel: 'possession',
  pop: 'possession',
  face: 'inherence',
  fpt: 'inherence',
  iris: 'inherence',
  retina: 'inherence',
  vbm: 'inherence',
};

/** amr values that state multi-factor (mfa) or multiple-channel (mca) authentication themselves. */
const MULTI_FACTOR_METHODS: ReadonlySet<string> = new Set(['mfa', 'mca']);

/** OpenID's PAPE policy for multi-factor authentication, an acr that states it by definition. */
export const PAPE_MULTI_FACTOR = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';

/** The ID token's amr, its strings only. */
export function amrOf(claims: Record<string, unknown>): string[] {
  return Array.isArray(claims.amr)
    ? claims.amr.filter((value): value is string => typeof value === 'string')
    : [];
}

/** The factor classes the methods of an amr show (RFC 8176 values; anything else shows none). */
export function factorClassesOf(amr: readonly string[]): Set<FactorClass> {
  const classes = new Set<FactorClass>();
  for (const method of amr) {
    const factor = Object.hasOwn(FACTOR_CLASS_OF_METHOD, method) ? FACTOR_CLASS_OF_METHOD[method] : undefined;
    if (factor !== undefined) classes.add(factor);
  }
  return classes;
}

/**
 * Whether an ID token shows a second factor: amr holding mfa or mca; or methods of two different
 * factor classes (pwd and otp, pin and hwk, swk and face; never two of one class such as pwd and
 * kba, nor a method that is no factor: geo, rba, user, wia); or an acr the operator named for it
 * (DEA_CONSOLE_OIDC_MFA_ACR_VALUES, DEA_OIDC_MFA_ACR_VALUES) or PAPE's multi-factor policy.
 */
export function showsSecondFactor(claims: Record<string, unknown>, mfaAcrValues: readonly string[]): boolean {
  const amr = amrOf(claims);
  if (amr.some((method) => MULTI_FACTOR_METHODS.has(method))) return true;
  if (factorClassesOf(amr).size >= 2) return true;
  const { acr } = claims;
  return typeof acr === 'string' && (acr === PAPE_MULTI_FACTOR || mfaAcrValues.includes(acr));
}

/**
 * When the provider last authenticated the person (the ID token's auth_time, in ms), never later
 * than `at` (a provider's clock ahead of this server's gives no freshness beyond now); undefined
 * when the token does not say.
 */
export function authenticatedAt(claims: Record<string, unknown>, at: number): number | undefined {
  const { auth_time: authTime } = claims;
  if (typeof authTime !== 'number' || !Number.isFinite(authTime) || authTime < 0) return undefined;
  return Math.min(authTime * 1000, at);
}

/** Whether the provider authenticated the person at most `maxAgeMs` before `at` (auth_time). */
export function authenticatedWithin(claims: Record<string, unknown>, at: number, maxAgeMs: number): boolean {
  const authAt = authenticatedAt(claims, at);
  return authAt !== undefined && at - authAt <= maxAgeMs;
}
