import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKeys } from '../crypto/secret-keys.js';
import { authenticateServiceKey } from '../domain/codes/service-keys.js';
import {
  CLI_SECRET,
  type CliFixture,
  openCliFixture,
  storeSnapshot,
  expectRefusals,
  type Refusal,
} from '../testing/cli.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';

describe.each(DOOR_STORE_KINDS)('dea service-key on %s', (kind) => {
  let cli: CliFixture;
  let key: string;
  const keys = deriveKeys(Buffer.from(CLI_SECRET, 'base64'));
  beforeAll(async () => {
    cli = await openCliFixture(kind);
  });
  afterAll(() => cli.dispose());

  it('creates a key that the verification API accepts, printed once with a warning', async () => {
    const result = await cli.run(['service-key', 'create', 'vpn-gateway']);
    expect(result.code).toBe(0);
    key = result.out;
    expect(key).toMatch(/^dea_[0-9a-f-]{36}\.[\w-]{43}$/);
    expect(result.err).toContain('only time the key is shown');
    const found = await authenticateServiceKey(cli.store, keys, key, 'verify');
    expect(found).toMatchObject({ name: 'vpn-gateway', scopes: ['verify'], revokedAt: null });
    expect(JSON.stringify(await cli.store.serviceKeys.list())).not.toContain(key.split('.')[1]);
    expect(await cli.run(['service-key', 'create', 'second', '--scope', 'verify'])).toMatchObject({
      code: 0,
    });
  });

  it('lists keys without their secrets', async () => {
    const listed = await cli.run(['service-key', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(
      /^second {2}[0-9a-f-]{36} {2}scopes verify {2}created \S+ {2}active\nvpn-gateway /,
    );
    const json = await cli.run(['service-key', 'list', '--json']);
    expect(json.out).not.toContain(key.split('.')[1]);
    expect(json.out).not.toContain('keyHash');
    expect(JSON.parse(json.out)).toHaveLength(2);
  });

  it('revokes a key by name or id', async () => {
    expect(await cli.run(['service-key', 'revoke', 'vpn-gateway'])).toMatchObject({
      code: 0,
      out: expect.stringContaining('Revoked service key vpn-gateway'),
    });
    expect(await authenticateServiceKey(cli.store, keys, key, 'verify')).toBeUndefined();
    const second = (await cli.store.serviceKeys.list()).find((each) => each.name === 'second');
    expect(await cli.run(['service-key', 'revoke', second?.id ?? ''])).toMatchObject({ code: 0 });
    expect((await cli.run(['service-key', 'list'])).out).toContain('revoked 20');
  });

  it('refuses bad input with one line and changes nothing', async () => {
    const before = await storeSnapshot(cli.store);
    const refusals: Refusal[] = [
      [['service-key', 'create'], 2, 'missing <name>'],
      [['service-key', 'create', 'bad/name'], 2, 'the name "bad/name" must be 1 to 100 letters'],
      [
        ['service-key', 'create', 'third', '--scope', 'admin'],
        2,
        'unknown scope "admin" (one of verify, scim)',
      ],
      [['service-key', 'create', 'second'], 1, 'a service key named "second" already exists'],
      [['service-key', 'revoke', 'nobody'], 1, 'no service key named "nobody"'],
      [['service-key', 'revoke', 'second'], 1, 'service key second was already revoked'],
      [['service-key', 'revoke'], 2, 'missing <name|id>'],
    ];
    await expectRefusals(cli, refusals);
    expect(await storeSnapshot(cli.store)).toEqual(before);
  });
});
