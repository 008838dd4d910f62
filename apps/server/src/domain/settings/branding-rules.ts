import {
  BRANDING_NAMES,
  BRANDING_TYPE_OF,
  BRANDING_TYPES,
  type BrandingEntry,
  type BrandingName,
  type BrandingType,
} from '@dea/contract';
import type { Store } from '../../store/store.js';
import { RuleError } from '../rule-error.js';

/** Larger values would slow every page load: the branding list is sent to each visitor. */
export const MAX_BRANDING_VALUE_BYTES = 512 * 1024;
/** What the page shows as an image: an http(s) URL or a data URL of an image (as the page checks). */
const IMAGE_VALUE = /^(https?:\/\/\S+|data:image\/(png|gif|jpe?g|webp|avif|svg\+xml)[;,]\S*)$/i;

export const defaultBrandingEntry = (name: BrandingName): BrandingEntry => ({
  name,
  type: BRANDING_TYPE_OF[name],
  value: '',
  isDefault: true,
});

/** Every entry of spec section 3 in its order, the product's default where none is stored. */
export async function brandingEntries(store: Store): Promise<BrandingEntry[]> {
  const stored = new Map((await store.branding.list()).map((entry) => [entry.name, entry]));
  return BRANDING_NAMES.map((name) => stored.get(name) ?? defaultBrandingEntry(name));
}

/** Why a value cannot be the entry's (in words that follow "the value"), or undefined. */
export function brandingValueProblem(type: BrandingType, value: string): string | undefined {
  if (!(BRANDING_TYPES as readonly string[]).includes(type))
    return `type must be one of ${BRANDING_TYPES.join(', ')}`;
  if (Buffer.byteLength(value) > MAX_BRANDING_VALUE_BYTES) return 'is larger than 512 KiB';
  if (type === 'image' && value !== '' && !IMAGE_VALUE.test(value.trim()))
    return 'of an image must be an http(s) URL or a data:image URL';
  return undefined;
}

/**
 * One branding entry set, the rule of the CLI and the console: the value checked for its type,
 * stored (the page reads it on its next load), audited with who set it.
 */
export async function setBranding(
  store: Store,
  entry: { name: BrandingName; type?: BrandingType; value: string },
  actor: string,
  now: number,
): Promise<BrandingEntry> {
  const type = entry.type ?? BRANDING_TYPE_OF[entry.name];
  const problem = brandingValueProblem(type, entry.value);
  if (problem !== undefined) throw new RuleError(`the value ${problem}`);
  const stored: BrandingEntry = { name: entry.name, type, value: entry.value, isDefault: false };
  await store.branding.set(stored);
  await store.audit.append(
    { event: 'branding.set', actor, details: { name: entry.name, type, bytes: entry.value.length } },
    now,
  );
  return stored;
}

/** Back to the product's default for the entry, audited. */
export async function resetBranding(
  store: Store,
  name: BrandingName,
  actor: string,
  now: number,
): Promise<void> {
  await store.branding.set(defaultBrandingEntry(name));
  await store.audit.append({ event: 'branding.reset', actor, details: { name } }, now);
}
