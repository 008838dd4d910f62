import { describe, expect, it } from 'vitest';
import { canonicalAddress, canonicalEmail, canonicalPhone, recipientIdentity } from './recipients.js';

describe('recipients', () => {
  it.each([
    '+49 170 5550112',
    '0049 170 5550112',
    '+49 (0) 170 5550112',
    '+49 (0)170-5550112',
    '+49.170.5550112',
  ])('writes the phone number %j as E.164', (text) => {
    expect(canonicalPhone(text)).toBe('+491705550112');
  });

  it.each(['0170 5550112', '+49 170', 'call me', '+0 170 5550112', '+49 170 5550112 ext 3', ''])(
    'refuses %j, which is not an international phone number',
    (text) => {
      expect(canonicalPhone(text)).toBeUndefined();
    },
  );

  it('keeps the local part of an e-mail address and lowers its domain; refuses what is not one address', () => {
    expect(canonicalEmail(' Alice.B@Example.COM ')).toBe('Alice.B@example.com');
    for (const bad of [
      'alice',
      'a@b',
      'a b@example.com',
      'a@example.com, b@example.com',
      `${'a'.repeat(250)}@x.com`,
    ]) {
      expect(canonicalEmail(bad)).toBeUndefined();
    }
  });

  it('writes handles with their @', () => {
    expect(canonicalAddress('TWITTER', 'chris_c')).toBeUndefined();
    expect(canonicalAddress('TWITTER', '@chris_c')).toBe('@chris_c');
    expect(canonicalAddress('TWITTER', '@far_too_long_handle_x')).toBeUndefined();
  });

  it('counts every spelling of one recipient as one, stored data of earlier versions included', () => {
    const phones = ['+49 170 5550112', '0049 170 5550112', '+49 (0) 170 5550112', '+491705550112'];
    expect(new Set(phones.map((phone) => recipientIdentity('sms', phone))).size).toBe(1);
    expect(recipientIdentity('smtp', 'Alice@Example.com')).toBe(
      recipientIdentity('smtp', 'alice@example.com'),
    );
    expect(recipientIdentity('TWITTER', '@Chris')).toBe(recipientIdentity('TWITTER', 'chris'));
    expect(recipientIdentity('sms', '+1 (555) 0001')).toBe('+15550001');
  });
});
