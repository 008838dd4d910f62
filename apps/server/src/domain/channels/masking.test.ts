import { CHANNEL_KEYS } from '@dea/contract';
import { describe, expect, it } from 'vitest';
import { maskAddress, maskEmail, maskHandle, maskPhone } from './masking.js';

const digitsOf = (text: string): string => text.replace(/\D/g, '');

describe('masking', () => {
  it('shows of a phone number only the country code and the last two digits', () => {
    expect(maskPhone('+49 170 5550112')).toBe('+49 *** ***12');
    expect(maskPhone('+44 20 7946 0958')).toBe('+44 *** ***58');
    expect(maskPhone('0170 5550112')).toBe('*** ***12');
    for (const phone of ['+49 170 5550112', '+1 (415) 555-2671', '0049-89-5550178', '+81 3-1234-5678']) {
      const masked = maskPhone(phone);
      expect(digitsOf(masked).length, phone).toBeLessThanOrEqual(4);
      expect(masked.endsWith(digitsOf(phone).slice(-2)), phone).toBe(true);
      expect(masked).not.toContain(digitsOf(phone).slice(-3));
    }
  });

  it('shows of an e-mail address the first letters of its name and host and the top-level domain', () => {
    expect(maskEmail('chris.channel@example.com')).toBe('c***@e***.com');
    expect(maskEmail('jane@mail.example.co.uk')).toBe('j***@m***.uk');
    expect(maskEmail('no-at-sign')).toBe('***');
    expect(maskEmail('@example.com')).toBe('***');
    for (const email of ['chris.channel@example.com', 'j.doe+2fa@corp.example.org']) {
      const masked = maskEmail(email);
      const [local = '', domain = ''] = email.split('@');
      expect(masked).not.toContain(local.slice(0, 2));
      expect(masked).not.toContain(domain.split('.')[0]?.slice(0, 2));
    }
  });

  it('shows of a social handle its first two letters', () => {
    expect(maskHandle('@chris_channel')).toBe('@ch***');
    expect(maskHandle('chrisc')).toBe('@ch***');
  });

  it('masks every channel key by its type', () => {
    const addresses = {
      mobile: '+49 170 5550112',
      personalMobile: '+49 151 5550134',
      email: 'chris.channel@example.com',
      personalEmail: 'chris@example.org',
      telephone: '+49 30 5550156',
      personalTelephone: '+49 89 5550178',
      twitter: '@chris_channel',
      personalTwitter: '@chrisc',
    } as const;
    const masked = Object.fromEntries(CHANNEL_KEYS.map((key) => [key, maskAddress(key, addresses[key])]));
    expect(masked).toEqual({
      mobile: '+49 *** ***12',
      personalMobile: '+49 *** ***34',
      email: 'c***@e***.com',
      personalEmail: 'c***@e***.org',
      telephone: '+49 *** ***56',
      personalTelephone: '+49 *** ***78',
      twitter: '@ch***',
      personalTwitter: '@ch***',
    });
    for (const key of CHANNEL_KEYS) expect(masked[key]).not.toContain(',');
  });
});
