import {
  DEFAULT_CHANNEL_REGISTRATION_POLICY,
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  POLICY_CATEGORY_HELP_DESK,
  POLICY_CATEGORY_SELF_SERVICE,
} from '@dea/contract';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../store/store.js';
import { storeTest } from '../../testing/fixtures.js';
import { identityOf } from '../../testing/identity.js';
import { STORE_KINDS } from '../../testing/stores.js';
import { RuleError } from '../rule-error.js';
import {
  effectiveRegistrationOptions,
  GroupPolicies,
  helpDeskPolicyAllows,
  issuersOf,
  policyOptionProblem,
  registrationOptionProblem,
} from './group-policies.js';

const T0 = Date.UTC(2026, 11, 7, 9, 0, 0);
const OPERATOR = { door: 'local', actor: 'cli' } as const;

describe('a policy option, checked by itself', () => {
  it('is a whole number within its bounds, at both edges', () => {
    expect(policyOptionProblem('codeLength', 6)).toBeUndefined();
    expect(policyOptionProblem('codeLength', 64)).toBeUndefined();
    for (const wrong of [5, 65, 10.5, '10'])
      expect(policyOptionProblem('codeLength', wrong), String(wrong)).toBe(
        'must be a whole number from 6 to 64',
      );
  });

  it('is true or false where it is a switch, and one of the two delivery modes', () => {
    expect(policyOptionProblem('enableECode', 'true')).toBe('must be true or false');
    expect(policyOptionProblem('enableECode', false)).toBeUndefined();
    expect(policyOptionProblem('emergencyCodeDelivery', 'Channel')).toBeUndefined();
    expect(policyOptionProblem('emergencyCodeDelivery', 'channel')).toBe('must be Channel or Display');
    expect(policyOptionProblem('emergencyCodeDelivery', 3)).toBe('must be text');
  });

  it('takes an alphabet of 10 to 100 characters, without spaces or a character twice', () => {
    expect(policyOptionProblem('codeAlphabet', '0123456789')).toBeUndefined();
    expect(policyOptionProblem('codeAlphabet', '012345678')).toBe(
      'must be 10 to 100 characters without spaces',
    );
    expect(policyOptionProblem('codeAlphabet', '01234 56789')).toBe(
      'must be 10 to 100 characters without spaces',
    );
    expect(policyOptionProblem('codeAlphabet', '0123456780')).toBe('must not repeat a character');
  });
});

describe('the help-desk and channel registration options', () => {
  it('let both console roles issue codes unless the group names its issuers', () => {
    expect(issuersOf(undefined)).toEqual(['admin', 'helpdesk']);
    expect(issuersOf({ issuers: ['admin'] })).toEqual(['admin']);
    // A stored policy that is not one lets both, as none does.
    expect(issuersOf({ issuers: ['root'] })).toEqual(['admin', 'helpdesk']);
    expect(helpDeskPolicyAllows({ issuers: ['admin'] }, 'helpdesk')).toBe(false);
    expect(helpDeskPolicyAllows({ issuers: [] }, 'admin')).toBe(false);
    expect(helpDeskPolicyAllows(undefined, 'helpdesk')).toBe(true);
  });

  it('names the option, its bounds and the entries that are no address range', () => {
    expect(registrationOptionProblem('coolingHours', 1)).toMatch(
      /^coolingHours is not a channel registration option/,
    );
    expect(registrationOptionProblem('registrationCoolingHours', 720)).toBeUndefined();
    expect(registrationOptionProblem('registrationCoolingHours', 721)).toBe(
      'registrationCoolingHours must be a whole number from 0 to 720',
    );
    expect(registrationOptionProblem('registrationChannelTypes', ['sms', 'sms'])).toBe(
      'registrationChannelTypes must be a list of sms, smtp, TELEPHONE, TWITTER, each once',
    );
    expect(
      registrationOptionProblem('screenCodeTrustedNetworks', ['10.0.0.0/8', 'fd00::/8']),
    ).toBeUndefined();
    expect(registrationOptionProblem('screenCodeTrustedNetworks', ['10.0.0.0/33', 'intranet'])).toMatch(
      /not one: "10\.0\.0\.0\/33", "intranet"$/,
    );
    expect(registrationOptionProblem('screenCodeTrustedNetworks', '10.0.0.0/8')).toMatch(/must be a list/);
    expect(registrationOptionProblem('screenCodeRememberedDeviceDays', 0)).toBeUndefined();
    expect(registrationOptionProblem('screenCodeRememberedDeviceDays', -1)).toBe(
      'screenCodeRememberedDeviceDays must be a whole number from 0 to 400',
    );
    const tooMany = Array.from({ length: 101 }, (_, n) => `10.0.${n}.0/24`);
    expect(registrationOptionProblem('screenCodeTrustedNetworks', tooMany.slice(0, 100))).toBeUndefined();
    expect(registrationOptionProblem('screenCodeTrustedNetworks', tooMany)).toMatch(/at most 100/);
  });

  it('apply each valid stored option and the default for the others', () => {
    expect(effectiveRegistrationOptions({})).toEqual(DEFAULT_CHANNEL_REGISTRATION_POLICY);
    expect(
      effectiveRegistrationOptions({
        registrationCoolingHours: 0,
        registrationMaxChannels: 99,
        screenCodeTrustedNetworks: ['example.com'],
        screenCodeRememberedDeviceDays: 30,
      }),
    ).toEqual({
      ...DEFAULT_CHANNEL_REGISTRATION_POLICY,
      registrationCoolingHours: 0,
      screenCodeRememberedDeviceDays: 30,
    });
  });
});

describe.each(STORE_KINDS)("a group's policies set on %s", (kind) => {
  storeTest.override('storeKind', kind);

  /** A group of one member, and the policies' use case over the store. */
  async function groupOf(store: Store) {
    const identity = identityOf(store, () => T0);
    const { user } = await identity.people.create(OPERATOR, {
      username: `member-${kind}`,
      fullName: 'Member',
    });
    const group = await identity.groups.create({ name: 'Nurses', priority: 1, members: [user.id] }, OPERATOR);
    const policies = new GroupPolicies(store, identity.groups);
    const entries = () => store.audit.list({ event: 'policy.set', limit: 100 });
    const stored = async (category: string) =>
      (await store.groups.listPolicies(group.id)).find((policy) => policy.category === category)?.options;
    return { user, group, policies, entries, stored };
  }

  storeTest.concurrent(
    'merges the changes into what is stored, answers it and audits only the changes with who set them',
    async ({ testStore: { store }, expect }) => {
      const { group, policies, entries, stored } = await groupOf(store);
      await policies.setPolicy(
        group,
        POLICY_CATEGORY_SELF_SERVICE,
        { enableECode: true, codeLength: 12 },
        'cli',
      );
      const answer = await policies.setPolicy(
        group,
        POLICY_CATEGORY_SELF_SERVICE,
        { codeLength: 16, emergencyCodeDelivery: 'Channel' },
        'console:admin',
      );
      expect(answer).toEqual({ enableECode: true, codeLength: 16, emergencyCodeDelivery: 'Channel' });
      expect(await stored(POLICY_CATEGORY_SELF_SERVICE)).toEqual(answer);
      expect((await entries()).map(({ actor, details }) => ({ actor, details }))).toEqual([
        {
          actor: 'console:admin',
          details: {
            group: 'Nurses',
            category: POLICY_CATEGORY_SELF_SERVICE,
            options: { codeLength: 16, emergencyCodeDelivery: 'Channel' },
          },
        },
        {
          actor: 'cli',
          details: {
            group: 'Nurses',
            category: POLICY_CATEGORY_SELF_SERVICE,
            options: { enableECode: true, codeLength: 12 },
          },
        },
      ]);
    },
  );

  storeTest.concurrent(
    'refuses a wrong category, nothing to set or a wrong option, and stores and audits nothing',
    async ({ testStore: { store }, expect }) => {
      const { group, policies, entries, stored } = await groupOf(store);
      const refused: [string, Record<string, unknown>, RegExp][] = [
        ['', { enableECode: true }, /the category must be 1 to 100 characters/],
        ['   ', { enableECode: true }, /the category must be 1 to 100 characters/],
        ['x'.repeat(101), { enableECode: true }, /the category must be 1 to 100 characters/],
        [POLICY_CATEGORY_SELF_SERVICE, {}, /nothing to set/],
        [POLICY_CATEGORY_SELF_SERVICE, { codeLenght: 10 }, /codeLenght is not a policy option/],
        [POLICY_CATEGORY_SELF_SERVICE, { enableECode: true, codeUses: 0 }, /codeUses must be a whole number/],
        [POLICY_CATEGORY_HELP_DESK, { issuers: ['root'] }, /issuers must be a list of admin and helpdesk/],
        [POLICY_CATEGORY_HELP_DESK, { issuers: ['admin'], more: 1 }, /issuers must be a list/],
        [POLICY_CATEGORY_CHANNEL_REGISTRATION, { registrationMaxChannels: 9 }, /from 0 to 8/],
        [POLICY_CATEGORY_CHANNEL_REGISTRATION, { codeLength: 10 }, /not a channel registration option/],
      ];
      for (const [category, changes, problem] of refused) {
        const outcome = policies.setPolicy(group, category, changes, 'cli');
        await expect(outcome, category).rejects.toBeInstanceOf(RuleError);
        await expect(outcome, category).rejects.toThrow(problem);
      }
      expect(await store.groups.listPolicies(group.id)).toEqual([]);
      expect(await entries()).toEqual([]);
      expect(await stored(POLICY_CATEGORY_SELF_SERVICE)).toBeUndefined();
      // A category of 100 characters is one; any other category takes the emergency options.
      await policies.setPolicy(group, 'c'.repeat(100), { enableECode: true }, 'cli');
      expect(await stored('c'.repeat(100))).toEqual({ enableECode: true });
    },
  );

  storeTest.concurrent(
    "switching codes off in the Self Service policy takes back the members' unused codes, audited; other categories take back none",
    async ({ testStore: { store }, expect }) => {
      const { user, group, policies } = await groupOf(store);
      await policies.setPolicy(group, POLICY_CATEGORY_SELF_SERVICE, { enableECode: true }, 'cli');
      await store.codes.issue(
        {
          id: `code-${kind}`,
          userId: user.id,
          codeHash: 'hash-of-a-code',
          createdAt: T0,
          expiresAt: T0 + 3_600_000,
          uses: 1,
          channelType: null,
        },
        5,
        { event: 'code.issued', userId: user.id },
      );
      await policies.setPolicy(
        group,
        POLICY_CATEGORY_CHANNEL_REGISTRATION,
        { registrationMaxChannels: 0 },
        'cli',
      );
      expect(await store.codes.countActive(user.id, T0)).toBe(1);
      await policies.setPolicy(group, POLICY_CATEGORY_SELF_SERVICE, { enableECode: false }, 'console:admin');
      expect(await store.codes.countActive(user.id, T0)).toBe(0);
      expect(await store.audit.list({ userId: user.id, event: 'codes.switched_off' })).toMatchObject([
        {
          actor: 'console:admin',
          details: { group: 'Nurses', cause: 'policy set', codeIds: [`code-${kind}`] },
        },
      ]);
    },
  );

  storeTest.concurrent(
    "a group the identity provider owns keeps its policies the operator's",
    async ({ testStore: { store }, expect }) => {
      const identity = identityOf(store, () => T0);
      const group = await identity.groups.create({ name: 'From SCIM', priority: 1 }, OPERATOR);
      const handed = await identity.groups.setOwner(group, 'scim', OPERATOR);
      const policies = new GroupPolicies(store, identity.groups);
      await expect(
        policies.setPolicy(handed, POLICY_CATEGORY_SELF_SERVICE, { enableECode: true }, 'cli'),
      ).resolves.toEqual({ enableECode: true });
    },
  );
});
