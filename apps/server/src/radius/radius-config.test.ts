import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { clientAddress, parseRadiusClients, radiusConfigOf } from './radius-config.js';

const SECRET = 'a-long-shared-secret';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('RADIUS configuration', () => {
  it('is off by default', () => {
    const config = loadConfig({});
    expect(config.radius).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      clients: new Map(),
      rejectMessage: undefined,
      retransmissions: { windowMs: 30_000, max: 10_000 },
    });
    expect(
      loadConfig({ DEA_RADIUS_RETRANSMIT_SECONDS: '5', DEA_RADIUS_RETRANSMIT_MAX: '200' }).radius
        .retransmissions,
    ).toEqual({ windowMs: 5000, max: 200 });
    expect(problemsOf({ DEA_RADIUS_RETRANSMIT_MAX: '10' }).join()).toContain('DEA_RADIUS_RETRANSMIT_MAX');
    expect(config.radius.dictionary.find('filter-id')).toEqual({
      name: 'Filter-Id',
      code: 11,
      type: 'string',
    });
  });

  it('reads clients as ip=secret pairs and as a JSON object, secrets kept as written', () => {
    const pairs = parseRadiusClients(` 127.0.0.1=${SECRET} , 10.0.0.5 = ${SECRET}=x ,::1=${SECRET}`);
    expect(pairs.problems).toEqual([]);
    expect([...pairs.clients]).toEqual([
      ['127.0.0.1', SECRET],
      ['10.0.0.5', `${SECRET}=x`],
      ['::1', SECRET],
    ]);
    const json = parseRadiusClients(
      JSON.stringify({ '192.0.2.7': `${SECRET},with comma`, '::ffff:192.0.2.8': SECRET }),
    );
    expect(json.problems).toEqual([]);
    expect(json.clients.get('192.0.2.7')).toBe(`${SECRET},with comma`);
    expect(json.clients.get('192.0.2.8')).toBe(SECRET);
  });

  it('names every bad client without showing a secret', () => {
    const { problems } = parseRadiusClients(
      `host.example=${SECRET},10.0.0.1=short,10.0.0.2=${SECRET},10.0.0.2=${SECRET}`,
    );
    expect(problems).toEqual([
      'DEA_RADIUS_CLIENTS: "host.example" is not an IP address',
      'DEA_RADIUS_CLIENTS: the secret of "10.0.0.1" must be a text of at least 16 characters',
      'DEA_RADIUS_CLIENTS: "10.0.0.2" is listed twice',
    ]);
    expect(problems.join(' ')).not.toContain(SECRET);
    expect(parseRadiusClients('{"10.0.0.1": 5}').problems).toHaveLength(1);
    expect(parseRadiusClients('{not json').problems).toEqual(['DEA_RADIUS_CLIENTS: is not valid JSON']);
    expect(parseRadiusClients('["10.0.0.1"]').problems).toEqual([
      'DEA_RADIUS_CLIENTS: must be a JSON object',
    ]);
    expect(parseRadiusClients('10.0.0.1').problems).toEqual([
      'DEA_RADIUS_CLIENTS: "10.0.0.1" must read ip=secret',
    ]);
  });

  it('stops the start when the port is set without clients, or the host is not an address', () => {
    expect(problemsOf({ DEA_RADIUS_PORT: '1812' })).toEqual([
      'DEA_RADIUS_CLIENTS: required when DEA_RADIUS_PORT is set',
    ]);
    expect(problemsOf({ DEA_RADIUS_PORT: '70000', DEA_RADIUS_HOST: 'radius.example' })).toEqual([
      expect.stringMatching(/^DEA_RADIUS_PORT="70000": /),
      'DEA_RADIUS_HOST="radius.example": must be an IP address',
      'DEA_RADIUS_CLIENTS: required when DEA_RADIUS_PORT is set',
    ]);
    const config = loadConfig({
      DEA_RADIUS_PORT: '1812',
      DEA_RADIUS_HOST: '::',
      DEA_RADIUS_CLIENTS: `10.1.1.1=${SECRET}`,
    });
    expect(config.radius.port).toBe(1812);
    expect(config.radius.host).toBe('::');
    expect(config.radius.clients.get('10.1.1.1')).toBe(SECRET);
  });

  it('reads the RADIUS settings through one function as well', () => {
    const problems: string[] = [];
    const values: Record<string, string> = {
      DEA_RADIUS_PORT: '0',
      DEA_RADIUS_HOST: '127.0.0.1',
      DEA_RADIUS_CLIENTS: '',
    };
    expect(radiusConfigOf((name) => values[name] ?? '', problems)).toMatchObject({
      port: 0,
      host: '127.0.0.1',
      clients: new Map(),
      rejectMessage: undefined,
    });
    expect(problems).toEqual([]);
  });

  it('spells an IPv4 client seen on a dual-stack socket as plain IPv4', () => {
    expect(clientAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(clientAddress('FE80::1')).toBe('fe80::1');
    expect(clientAddress('10.0.0.1')).toBe('10.0.0.1');
  });
});

describe('verification settings', () => {
  it('default to 10 failures and a 15-minute lock; 0 minutes locks until an operator unlocks', () => {
    expect(loadConfig({}).verification).toEqual({ maxFailures: 10, lockMs: 15 * 60_000 });
    expect(loadConfig({ DEA_VERIFY_MAX_FAILURES: '100', DEA_VERIFY_LOCK_MINUTES: '0' }).verification).toEqual(
      {
        maxFailures: 100,
        lockMs: null,
      },
    );
  });

  it('refuse more than 100 failures, fewer than 1, and a negative lock', () => {
    const problems = problemsOf({ DEA_VERIFY_MAX_FAILURES: '101', DEA_VERIFY_LOCK_MINUTES: '-1' });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^DEA_VERIFY_MAX_FAILURES="101": /);
    expect(problems[1]).toMatch(/^DEA_VERIFY_LOCK_MINUTES="-1": /);
    expect(problemsOf({ DEA_VERIFY_MAX_FAILURES: '0' })).toEqual([
      expect.stringMatching(/^DEA_VERIFY_MAX_FAILURES="0": /),
    ]);
  });
});
