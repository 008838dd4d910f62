import { POLICY_CATEGORY_CHANNEL_REGISTRATION, POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliFixture,
  openCliFixture,
  storeSnapshot,
  expectRefusals,
  type Refusal,
} from '../testing/cli.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';

describe.each(DOOR_STORE_KINDS)('dea group on %s', (kind) => {
  let cli: CliFixture;
  let erin: string;
  beforeAll(async () => {
    cli = await openCliFixture(kind);
    erin = await cli.addUser('erin');
    await cli.addUser('frank');
  });
  afterAll(() => cli.dispose());

  it('adds groups, members and lists them', async () => {
    expect(await cli.run(['group', 'add', '--name', 'Staff'])).toMatchObject({
      code: 0,
      out: 'Added group Staff (priority 0).',
    });
    expect(await cli.run(['group', 'add', '--name', 'Admins', '--priority', '10'])).toMatchObject({
      code: 0,
    });
    expect(await cli.run(['group', 'add-member', 'Staff', 'erin'])).toMatchObject({
      code: 0,
      out: 'Added erin to Staff.',
    });
    expect(await cli.run(['group', 'add-member', 'Staff', 'frank'])).toMatchObject({ code: 0 });
    expect(await cli.run(['group', 'add-member', 'Admins', 'erin'])).toMatchObject({ code: 0 });
    expect(await cli.run(['group', 'remove-member', 'Staff', 'frank'])).toMatchObject({
      code: 0,
      out: 'Removed frank from Staff.',
    });
    expect((await cli.run(['group', 'list'])).out.split('\n')).toEqual([
      'Admins  priority 10  owner local  members erin  policies -',
      'Staff  priority 0  owner local  members erin  policies -',
    ]);
  });

  it('sets the policy option by option, validated, and shows it', async () => {
    expect(
      await cli.run([
        'group',
        'policy',
        'set',
        'Staff',
        '--enable-ecode',
        'true',
        '--delivery',
        'Channel',
        '--code-length',
        '8',
      ]),
    ).toMatchObject({ code: 0, out: expect.stringContaining('Set the "Self Service" policy of Staff') });
    expect(
      await cli.run([
        'group',
        'policy',
        'set',
        'Staff',
        '--code-alphabet',
        'ABCDEFGHJK',
        '--code-validity-minutes',
        '60',
        '--code-uses',
        '2',
        '--max-unused-codes',
        '3',
      ]),
    ).toMatchObject({ code: 0 });
    expect(await cli.store.groups.findPolicyOfUser(erin, POLICY_CATEGORY_SELF_SERVICE)).toMatchObject({
      codeLength: 8,
    });
    const staff = await cli.store.groups.findByName('Staff');
    expect(await cli.store.groups.listPolicies(staff?.id ?? '')).toEqual([
      {
        category: 'Self Service',
        options: {
          enableECode: true,
          emergencyCodeDelivery: 'Channel',
          codeLength: 8,
          codeAlphabet: 'ABCDEFGHJK',
          codeValidityMinutes: 60,
          codeUses: 2,
          maxUnusedCodes: 3,
        },
      },
    ]);
    expect(
      await cli.run(['group', 'policy', 'set', 'Admins', '--category', 'VPN', '--enable-ecode', 'false']),
    ).toMatchObject({ code: 0 });
    expect(await cli.run(['group', 'policy', 'set', 'Admins', '--enable-ecode', 'true'])).toMatchObject({
      code: 0,
    });
    expect(await cli.store.groups.findPolicyOfUser(erin, POLICY_CATEGORY_SELF_SERVICE)).toEqual({
      enableECode: true,
    });

    const shown = await cli.run(['group', 'policy', 'show', 'Admins']);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('Policy "Self Service" of Admins:');
    expect(shown.out).toContain('  enableECode           true\n');
    expect(shown.out).toContain('  codeLength            10  (default)');
    const json = JSON.parse((await cli.run(['group', 'policy', 'show', 'Staff', '--json'])).out) as {
      effective: Record<string, unknown>;
    };
    expect(json.effective).toMatchObject({ codeLength: 8, codeUses: 2, emergencyCodeDelivery: 'Channel' });
    expect((await cli.run(['group', 'list'])).out).toContain(
      'Admins  priority 10  owner local  members erin  policies Self Service, VPN',
    );
  });

  it('refuses bad input with one line and changes nothing', async () => {
    const before = await storeSnapshot(cli.store);
    const set = ['group', 'policy', 'set', 'Staff'];
    const refusals: Refusal[] = [
      [['group', 'add'], 2, '--name is required'],
      [['group', 'add', '--name', 'X', '--priority', 'high'], 2, '--priority must be a whole number'],
      [['group', 'add', '--name', 'Staff'], 1, 'a group named "Staff" already exists'],
      [['group', 'add', '--name', 'x'.repeat(101)], 2, 'the name must be 1 to 100 characters'],
      [['group', 'add', '--name', 'Two\nlines'], 2, 'the name must not hold a control character'],
      [['group', 'add-member', 'Nobody', 'erin'], 1, 'no group named "Nobody"'],
      [['group', 'add-member', 'Staff', 'nobody'], 1, 'no user named "nobody"'],
      [['group', 'add-member', 'Staff', 'erin'], 1, 'erin is already in group Staff'],
      [['group', 'add-member', 'Staff'], 2, 'missing <username>'],
      [['group', 'remove-member', 'Staff', 'frank'], 1, 'frank is not in group Staff'],
      [['group', 'policy'], 2, 'missing <set|show>'],
      [['group', 'policy', 'change', 'Staff'], 2, 'unknown policy action "change"'],
      [['group', 'policy', 'set'], 2, 'missing <group>'],
      [[...set], 2, 'nothing to set'],
      [[...set, '--enable-ecode', 'yes'], 2, '--enable-ecode must be true or false'],
      [[...set, '--delivery', 'Email'], 2, '--delivery must be Channel or Display'],
      [[...set, '--code-length', '5'], 2, '--code-length must be a whole number from 6 to 64'],
      [[...set, '--code-length', '8.5'], 2, '--code-length must be a whole number from 6 to 64'],
      [[...set, '--code-validity-minutes', '0'], 2, 'from 1 to 10080'],
      [[...set, '--code-uses', '101'], 2, '--code-uses must be a whole number from 1 to 100'],
      [[...set, '--max-unused-codes', '-1'], 2, "Option '--max-unused-codes' argument is ambiguous"],
      [[...set, '--max-unused-codes=-1'], 2, '--max-unused-codes must be a whole number'],
      [[...set, '--code-alphabet', 'ABC'], 2, '--code-alphabet must be 10 to 100 characters'],
      [[...set, '--code-alphabet', 'AABCDEFGHJK'], 2, 'must not repeat a character'],
      [[...set, '--code-length', '8', '--code-uses', 'x'], 2, '--code-uses'],
      [[...set, '--color', 'red'], 2, "Unknown option '--color'"],
      [['group', 'policy', 'set', 'Nobody', '--code-length', '8'], 1, 'no group named "Nobody"'],
      [['group', 'policy', 'show', 'Staff', '--code-length', '8'], 2, '--code-length belongs to policy set'],
      [['group', 'policy', 'show', 'Staff', '--category', 'Other'], 1, 'group Staff has no "Other" policy'],
    ];
    await expectRefusals(cli, refusals);
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });

  it("renames and removes an operator's group; a SCIM group's name is refused naming its owner", async () => {
    expect(await cli.run(['group', 'add', '--name', 'Temps'])).toMatchObject({ code: 0 });
    expect(await cli.run(['group', 'add-member', 'Temps', 'frank'])).toMatchObject({ code: 0 });
    expect(await cli.run(['group', 'rename', 'Temps', 'Contractors'])).toMatchObject({
      code: 0,
      out: 'Renamed group Temps to Contractors.',
    });
    expect(await cli.run(['group', 'owner', 'Contractors', 'scim'])).toMatchObject({ code: 0 });
    const before = await storeSnapshot(cli.store);
    await expectRefusals(cli, [
      [
        ['group', 'rename', 'Contractors', 'Externals'],
        1,
        'group "Contractors" is owned by the identity provider (scim)',
      ],
      [['group', 'remove', 'Contractors'], 1, 'its name may be changed only by the identity provider (scim)'],
      [['group', 'rename', 'Contractors', 'x'.repeat(101)], 2, 'the name must be 1 to 100 characters'],
      [['group', 'remove', 'Nobody'], 1, 'no group named "Nobody"'],
    ]);
    expect(await storeSnapshot(cli.store)).toEqual(before);
    expect(await cli.run(['group', 'owner', 'Contractors', 'local'])).toMatchObject({ code: 0 });
    expect(await cli.run(['group', 'remove', 'Contractors'])).toMatchObject({
      code: 0,
      out: 'Removed group Contractors.',
    });
    expect(await cli.store.groups.findByName('Contractors')).toBeUndefined();
    const events = (await cli.store.audit.list({ actor: 'cli' })).map((entry) => entry.event);
    expect(events.slice(0, 3)).toEqual(['group.removed', 'group.owner_set', 'group.owner_set']);
  });

  it('sets the "Channel Registration" policy with its own flags, checked by the console\'s rule, and shows it', async () => {
    expect(await cli.run(['group', 'add', '--name', 'Registrars'])).toMatchObject({ code: 0 });
    const set = ['group', 'policy', 'set', 'Registrars'];
    expect(
      await cli.run([
        ...set,
        '--registration-cooling-hours',
        '48',
        '--registration-channel-types',
        'sms, smtp',
        '--registration-max-channels',
        '2',
      ]),
    ).toMatchObject({
      code: 0,
      out: 'Set the "Channel Registration" policy of Registrars: {"registrationCoolingHours":48,"registrationChannelTypes":["sms","smtp"],"registrationMaxChannels":2}',
    });
    // Option by option: what was set stays; an empty list lets members register no channel.
    expect(
      await cli.run([
        ...set,
        '--category',
        POLICY_CATEGORY_CHANNEL_REGISTRATION,
        '--reprove-after-days',
        '365',
        '--registration-channel-types',
        '',
        '--screen-code-trusted-networks',
        '10.0.0.0/8, 2001:db8::/32',
        '--screen-code-remembered-device-days',
        '30',
      ]),
    ).toMatchObject({ code: 0 });
    const group = (await cli.store.groups.list()).find((each) => each.name === 'Registrars');
    const policies = await cli.store.groups.listPolicies(group?.id ?? '');
    expect(policies).toEqual([
      {
        category: POLICY_CATEGORY_CHANNEL_REGISTRATION,
        options: {
          registrationCoolingHours: 48,
          registrationChannelTypes: [],
          registrationMaxChannels: 2,
          reproveAfterDays: 365,
          screenCodeTrustedNetworks: ['10.0.0.0/8', '2001:db8::/32'],
          screenCodeRememberedDeviceDays: 30,
        },
      },
    ]);
    const changed = await cli.store.audit.list({ event: 'policy.set', limit: 1 });
    expect(changed[0]?.details).toMatchObject({
      group: 'Registrars',
      category: POLICY_CATEGORY_CHANNEL_REGISTRATION,
    });
    const shown = await cli.run([
      'group',
      'policy',
      'show',
      'Registrars',
      '--category',
      POLICY_CATEGORY_CHANNEL_REGISTRATION,
    ]);
    expect(shown.out.split('\n')).toEqual([
      'Policy "Channel Registration" of Registrars:',
      '  registrationCoolingHours       48',
      '  registrationChannelTypes       (none)',
      '  registrationMaxChannels        2',
      '  reproveAfterDays               365',
      '  screenCodeTrustedNetworks      10.0.0.0/8,2001:db8::/32',
      '  screenCodeRememberedDeviceDays 30',
    ]);

    const before = await storeSnapshot(cli.store);
    await expectRefusals(cli, [
      [
        [...set, '--registration-cooling-hours', '721'],
        2,
        '--registration-cooling-hours: registrationCoolingHours must be a whole number from 0 to 720',
      ],
      [
        [...set, '--registration-max-channels', 'x'],
        2,
        '--registration-max-channels: registrationMaxChannels must be a whole number from 0 to 8',
      ],
      [[...set, '--reprove-after-days', '3651'], 2, 'reproveAfterDays must be a whole number from 0 to 3650'],
      [[...set, '--screen-code-trusted-networks', '10.0.0.0/33'], 2, '--screen-code-trusted-networks: '],
      [
        [...set, '--registration-channel-types', 'sms,fax'],
        2,
        `--registration-channel-types: registrationChannelTypes must be a list of sms, smtp, TELEPHONE, TWITTER, each once`,
      ],
      [[...set, '--registration-channel-types', 'sms,sms'], 2, 'each once'],
      [
        [...set, '--registration-max-channels', '2', '--code-length', '8'],
        2,
        '--code-length is not an option of the "Channel Registration" policy',
      ],
      [
        [...set, '--category', 'Self Service', '--reprove-after-days', '1'],
        2,
        '--reprove-after-days belongs to the "Channel Registration" policy, not "Self Service"',
      ],
      [
        [...set, '--category', POLICY_CATEGORY_CHANNEL_REGISTRATION],
        2,
        'nothing to set: give at least one of --registration-cooling-hours',
      ],
      [
        ['group', 'policy', 'show', 'Registrars', '--reprove-after-days', '1'],
        2,
        '--reprove-after-days belongs to policy set',
      ],
      [
        ['group', 'policy', 'show', 'Staff', '--category', POLICY_CATEGORY_CHANNEL_REGISTRATION],
        1,
        'group Staff has no "Channel Registration" policy (its members get the defaults',
      ],
    ]);
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });
});
