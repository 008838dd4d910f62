import type { SendType } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { channelRefusal, type ChannelRules, internationalPhone } from './channel-rules.js';

/** Rules with every type switched on but those named, and these prefixes. */
const rules = (prefixes: string[] = [], off: SendType[] = []): ChannelRules => ({
  enabled: (type) => !off.includes(type),
  allowedPhonePrefixes: prefixes,
});

describe('the rules of a channel', () => {
  it('writes a phone number compactly, its 00 as +, without the (0) of a national prefix', () => {
    expect(internationalPhone('+49 (0)170 555-0112')).toBe('+491705550112');
    expect(internationalPhone('0049 170 5550112')).toBe('+491705550112');
    expect(internationalPhone('+49.170.5550112')).toBe('+491705550112');
    expect(internationalPhone('0170 5550112')).toBe('01705550112');
  });

  it('refuses a switched-off type first, whatever the address', () => {
    expect(channelRefusal(rules(['+49'], ['sms']), 'sms', '+1 202 5550143')).toBe('channel-type-disabled');
    expect(channelRefusal(rules([], ['TWITTER']), 'TWITTER', '@chris')).toBe('channel-type-disabled');
    expect(channelRefusal(rules([], ['TWITTER']), 'smtp', 'chris@example.com')).toBeUndefined();
  });

  it('lets any number through when no prefix is set', () => {
    expect(channelRefusal(rules(), 'sms', '0170 5550112')).toBeUndefined();
    expect(channelRefusal(rules(), 'TELEPHONE', '+1 202 5550143')).toBeUndefined();
  });

  it('refuses, for texts and calls, a number outside the allowed prefixes or without a country prefix', () => {
    const german = rules(['+49', '+43']);
    for (const type of ['sms', 'TELEPHONE'] as const) {
      expect(channelRefusal(german, type, '+49 170 5550112'), type).toBeUndefined();
      expect(channelRefusal(german, type, '0043 664 5550143'), type).toBeUndefined();
      expect(channelRefusal(german, type, '+1 202 5550143'), type).toBe('phone-prefix-not-allowed');
      expect(channelRefusal(german, type, '089 5550143'), type).toBe('phone-prefix-not-allowed');
    }
    // Mail and direct messages have no prefix to check.
    expect(channelRefusal(german, 'smtp', 'chris@example.com')).toBeUndefined();
    expect(channelRefusal(german, 'TWITTER', '@chris')).toBeUndefined();
  });
});
