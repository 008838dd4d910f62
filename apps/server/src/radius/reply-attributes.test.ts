import { describe } from 'vitest';
import { newId } from '../crypto/ids.js';
import { appRadiusServer } from '../testing/app-radius.js';
import { appTest } from '../testing/fixtures.js';
import { radclientReply } from '../testing/radclient.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';
import { Dictionary, encodeValue, parseDictionary, wireAttribute } from './dictionary.js';

const SECRET = 'radius-reply-secret-0123';
const JUNIPER = '/usr/share/freeradius/dictionary.juniper';

const radiusOf = (t: TestApp, onTestFinished: (fn: () => Promise<void>) => void) =>
  appRadiusServer(t, SECRET, onTestFinished);

describe('the RADIUS dictionary', () => {
  appTest('reads FreeRADIUS dictionary files and encodes values by type', ({ expect }) => {
    const problems: string[] = [];
    const attributes = parseDictionary(
      'test.dict',
      [
        'VENDOR Example 99999',
        'BEGIN-VENDOR Example',
        'ATTRIBUTE Example-Role 1 string',
        'ATTRIBUTE Example-Level 2 integer',
        'ATTRIBUTE Example-Tlv 3 tlv',
        'END-VENDOR Example',
        'ATTRIBUTE Example-Plain 200 string',
        'ATTRIBUTE Broken',
      ].join('\n'),
      problems,
    );
    expect(attributes).toEqual([
      { name: 'Example-Role', code: 1, type: 'string', vendor: 99999 },
      { name: 'Example-Level', code: 2, type: 'integer', vendor: 99999 },
      { name: 'Example-Plain', code: 200, type: 'string' },
    ]);
    expect(problems).toEqual(['test.dict line 8: ATTRIBUTE needs a name, a number and a type']);
    const role = new Dictionary(attributes).find('example-role');
    if (role === undefined) throw new Error('not found');
    expect(wireAttribute(role, Buffer.from('ops'))).toEqual([
      26,
      Buffer.from([0, 1, 0x86, 0x9f, 1, 5, 0x6f, 0x70, 0x73]),
    ]);
    expect(encodeValue({ name: 'Session-Timeout', code: 27, type: 'integer' }, '3600')).toEqual(
      Buffer.from([0, 0, 14, 16]),
    );
    expect(encodeValue({ name: 'Session-Timeout', code: 27, type: 'integer' }, '-1')).toMatch(/whole number/);
    expect(encodeValue({ name: 'Framed-IP-Address', code: 8, type: 'ipaddr' }, '10.0.0.300')).toMatch(/IPv4/);
    expect(encodeValue({ name: 'Class', code: 25, type: 'octets' }, '0x0a0b')).toEqual(Buffer.from([10, 11]));
  });
});

describe.each(DOOR_STORE_KINDS)('RADIUS reply attributes on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'an Access-Accept carries the group attributes the operator set, read back by radclient',
    async ({ startApp, expect, onTestFinished }) => {
      const settings = { DEA_RADIUS_DICTIONARY: JUNIPER };
      const t = await startApp(settings);
      const server = await radiusOf(t, onTestFinished);
      const user = await t.createUser();
      const groupName = `group-${user.username}`;
      const set = await t.dea(
        [
          'group',
          'radius',
          'set',
          groupName,
          '--attribute',
          'Filter-Id=vpn-staff',
          '--attribute',
          'session-timeout=3600',
          '--attribute',
          'Class=staff',
          '--attribute',
          'Reply-Message=Welcome, staff',
          '--attribute',
          'Cisco-AVPair=ip:inacl#1=permit tcp any any eq 443',
          '--attribute',
          'Fortinet-Group-Name=vpn-users',
          '--attribute',
          'Juniper-Allow-Commands=show .*',
        ],
        settings,
      );
      expect(set).toMatchObject({
        code: 0,
        out: expect.stringContaining(
          'an Access-Accept carries Filter-Id = vpn-staff, Session-Timeout = 3600',
        ),
      });
      expect((await t.dea(['group', 'radius', 'show', groupName], settings)).out).toContain(
        '  Cisco-AVPair = ip:inacl#1=permit tcp any any eq 443',
      );

      const code = await t.codeOnScreen(user);
      const accepted = await radclientReply(server.port, SECRET, {
        userName: user.username,
        password: code ?? '',
      });
      expect(accepted.answer).toBe('Access-Accept');
      expect(accepted.attributes).toEqual(
        expect.arrayContaining([
          'Filter-Id = "vpn-staff"',
          'Session-Timeout = 3600',
          'Class = 0x7374616666',
          'Reply-Message = "Welcome, staff"',
          'Cisco-AVPair = "ip:inacl#1=permit tcp any any eq 443"',
          'Fortinet-Group-Name = "vpn-users"',
          'Juniper-Allow-Commands = "show .*"',
        ]),
      );
      // A reject says nothing unless the operator allows a Reply-Message.
      const rejected = await radclientReply(server.port, SECRET, {
        userName: user.username,
        password: code ?? '',
      });
      expect(rejected).toEqual({ answer: 'Access-Reject', attributes: [] });

      expect((await t.dea(['group', 'radius', 'clear', groupName], settings)).code).toBe(0);
      expect((await t.dea(['group', 'radius', 'show', groupName], settings)).out).toContain(
        'carries no attributes',
      );
    },
  );

  appTest(
    'the highest-priority group with attributes decides; a reject carries DEA_RADIUS_REJECT_MESSAGE',
    async ({ startApp, expect, onTestFinished }) => {
      const t = await startApp({ DEA_RADIUS_REJECT_MESSAGE: 'Wrong or used code' });
      const server = await radiusOf(t, onTestFinished);
      const user = await t.createUser();
      const vip = { id: newId(), name: `vip-${user.username}`, priority: 50 };
      await t.services.store.groups.create(vip);
      await t.services.store.groups.addMember(vip.id, user.id);
      await t.dea(['group', 'radius', 'set', `group-${user.username}`, '--attribute', 'Filter-Id=low'], {});
      await t.dea(['group', 'radius', 'set', vip.name, '--attribute', 'Filter-Id=high'], {});
      const code = await t.codeOnScreen(user);
      expect(
        await radclientReply(server.port, SECRET, { userName: user.username, password: code ?? '' }),
      ).toEqual({
        answer: 'Access-Accept',
        attributes: ['Filter-Id = "high"'],
      });
      expect(await radclientReply(server.port, SECRET, { userName: 'nobody', password: 'ABCDEFGH' })).toEqual(
        {
          answer: 'Access-Reject',
          attributes: ['Reply-Message = "Wrong or used code"'],
        },
      );
    },
  );

  appTest(
    'refuses attributes it cannot send, naming them, and changes nothing',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const user = await t.createUser();
      const group = `group-${user.username}`;
      for (const [attribute, message] of [
        [
          'Juniper-Allow-Commands=x',
          'Juniper-Allow-Commands is in no dictionary (built in, or DEA_RADIUS_DICTIONARY)',
        ],
        [
          'Session-Timeout=an hour',
          'Session-Timeout takes a whole number from 0 to 4294967295, not "an hour"',
        ],
        ['Framed-IP-Address=10.0.0.256', 'Framed-IP-Address takes an IPv4 address, not "10.0.0.256"'],
        ['Filter-Id', '"Filter-Id" must read NAME=VALUE (Filter-Id=vpn-staff)'],
        [`Reply-Message=${'x'.repeat(254)}`, 'Reply-Message takes 1 to 253 bytes of text'],
      ]) {
        const refused = await t.dea(['group', 'radius', 'set', group, '--attribute', attribute ?? ''], {});
        expect(refused.code, attribute).toBe(2);
        expect(refused.err, attribute).toContain(message);
      }
      expect((await t.dea(['group', 'radius', 'show', group], {})).out).toContain(
        'An Access-Accept carries no attributes of this group.',
      );
      expect(
        (await t.dea(['group', 'radius', 'set', 'no-such-group', '--attribute', 'Filter-Id=x'], {})).code,
      ).toBe(1);
    },
  );
});
