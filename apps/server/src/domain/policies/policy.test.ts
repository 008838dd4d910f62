import { describe, expect, it } from 'vitest';
import type { CodeDefaults } from '../codes/code-settings.js';
import { policyOptionsOf } from '../../store/sql/groups.js';
import { resolvePolicy, sendsByChannel } from './policy.js';

const defaults: CodeDefaults = {
  codeLength: 10,
  codeAlphabet: '23456789ABCDEFGHJKLMNPQRSTUVWXYZ',
  codeValidityMinutes: 15,
  codeUses: 1,
  maxUnusedCodes: 5,
};

describe('resolvePolicy', () => {
  it('disables codes when the user has no policy at all', () => {
    expect(resolvePolicy(undefined, defaults)).toEqual({
      enableECode: false,
      emergencyCodeDelivery: 'Display',
      ...defaults,
    });
  });

  it('fills what the stored options leave out with the defaults', () => {
    expect(resolvePolicy({ enableECode: true }, defaults)).toEqual({
      enableECode: true,
      emergencyCodeDelivery: 'Display',
      ...defaults,
    });
  });

  it('takes every valid stored option', () => {
    const stored = {
      enableECode: true,
      emergencyCodeDelivery: 'Channel',
      codeLength: 64,
      codeAlphabet: '0123456789',
      codeValidityMinutes: 10_080,
      codeUses: 3,
      maxUnusedCodes: 1,
    };
    expect(resolvePolicy(stored, defaults)).toEqual(stored);
  });

  it('replaces each stored option that is not valid by its default', () => {
    expect(
      resolvePolicy(
        {
          enableECode: 1,
          emergencyCodeDelivery: 42,
          codeLength: 5,
          codeAlphabet: 'short',
          codeValidityMinutes: 0,
          codeUses: 101,
          maxUnusedCodes: 2.5,
        },
        defaults,
      ),
    ).toEqual({ enableECode: false, emergencyCodeDelivery: 'Display', ...defaults });
    expect(resolvePolicy({ codeAlphabet: 'ABCDEFGHIJA' }, defaults).codeAlphabet).toBe(defaults.codeAlphabet);
  });

  it('checks the options of one stored text once: the same frozen policy, the same as checked anew', () => {
    const text = JSON.stringify({ enableECode: true, codeLength: 12, codeUses: 'many' });
    const stored = policyOptionsOf(text);
    expect(policyOptionsOf(text)).toBe(stored);
    const policy = resolvePolicy(stored, defaults);
    expect(resolvePolicy(policyOptionsOf(text), defaults)).toBe(policy);
    expect(Object.isFrozen(policy)).toBe(true);
    expect(policy).toEqual(resolvePolicy({ ...stored }, defaults));
    expect(policy).toMatchObject({ enableECode: true, codeLength: 12, codeUses: defaults.codeUses });
    // Other defaults (another setting) are checked for themselves.
    expect(resolvePolicy(stored, { ...defaults, codeUses: 3 }).codeUses).toBe(3);
  });

  it("sends by channel only in mode 'Channel'", () => {
    expect(sendsByChannel(resolvePolicy({ emergencyCodeDelivery: 'Channel' }, defaults))).toBe(true);
    for (const mode of ['Display', 'channel', 'Screen', '']) {
      expect(sendsByChannel(resolvePolicy({ emergencyCodeDelivery: mode }, defaults)), mode).toBe(false);
    }
  });
});
