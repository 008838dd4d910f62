import type { SendType } from '@dea/contract';

export type ChannelRefusal = 'channel-type-disabled' | 'phone-prefix-not-allowed';

export interface ChannelRules {
  /** Whether the operator has a provider for the type ('off' disables it). */
  enabled(type: SendType): boolean;
  /** International prefixes a phone number must start with; empty: any. */
  allowedPhonePrefixes: readonly string[];
}

/** '+49 (0)170 555-0112' and '0049 170 5550112' both become '+491705550112'; national numbers stay without '+'. */
export function internationalPhone(phone: string): string {
  const compact = phone.replace(/\(0\)/g, '').replace(/[^\d+]/g, '');
  return compact.startsWith('00') ? `+${compact.slice(2)}` : compact;
}

/** Why a channel may not receive codes, or undefined when it may. */
export function channelRefusal(
  rules: ChannelRules,
  type: SendType,
  address: string,
): ChannelRefusal | undefined {
  if (!rules.enabled(type)) return 'channel-type-disabled';
  if ((type === 'sms' || type === 'TELEPHONE') && rules.allowedPhonePrefixes.length > 0) {
    // A number without its country prefix cannot be checked, so it is refused like a foreign one.
    const phone = internationalPhone(address);
    if (!rules.allowedPhonePrefixes.some((prefix) => phone.startsWith(prefix)))
      return 'phone-prefix-not-allowed';
  }
  return undefined;
}
