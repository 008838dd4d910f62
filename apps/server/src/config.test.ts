import { resolve } from 'node:path';
import Value from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { configProblems } from './testing/config-problems.js';
import { ConfigError, SETTINGS, loadConfig } from './config.js';
import { DEFAULT_CODE_ALPHABET } from './domain/codes/code-settings.js';
import { contentSecurityPolicy } from './http/security-headers.js';

const problemsOf = (env: Record<string, string>): string[] => configProblems(() => loadConfig(env));

describe('loadConfig', () => {
  it('answers the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: undefined,
      dataDir: resolve('./data'),
      demo: false,
      secret: '',
      logLevel: 'info',
      requestLogWaitMs: 1000,
      trustProxy: false,
      cookieSecure: 'auto',
      loginPath: '/login/',
      sessionIdleMs: 30 * 60_000,
      sessionAbsoluteMs: 12 * 3_600_000,
      bodyLimitBytes: 16_384,
      codeDefaults: {
        codeLength: 10,
        codeAlphabet: DEFAULT_CODE_ALPHABET,
        codeValidityMinutes: 15,
        codeUses: 1,
        maxUnusedCodes: 5,
      },
      passwordHashCost: 17,
      dbPoolSize: 10,
      catalogCacheMs: 30_000,
      webDir: '',
    });
    // The default alphabet has no look-alikes.
    expect(DEFAULT_CODE_ALPHABET).not.toMatch(/[01OI]/);
  });

  it('treats an empty value as unset and trims values', () => {
    const config = loadConfig({ PORT: '', HOST: ' 127.0.0.1 ', DATABASE_URL: '' });
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.databaseUrl).toBeUndefined();
  });

  it('reads every kind of value', () => {
    const config = loadConfig({
      PORT: '9090',
      DATABASE_URL: 'postgres://dea@db/dea',
      DEA_DEMO: 'false',
      DEA_TRUST_PROXY: '10.0.0.1, 10.0.0.0/8',
      DEA_COOKIE_SECURE: 'always',
      DEA_LOGIN_PATH: '/sso/login/',
      DEA_SESSION_IDLE_MINUTES: '10',
      DEA_SESSION_ABSOLUTE_HOURS: '8',
      DEA_CODE_ALPHABET: '0123456789',
      DEA_CODE_MAX_UNUSED: '2',
      DEA_LOG_LEVEL: 'warn',
      DEA_REQUEST_LOG_WAIT_MS: '0',
    });
    expect(config).toMatchObject({
      port: 9090,
      databaseUrl: 'postgres://dea@db/dea',
      demo: false,
      trustProxy: ['10.0.0.1', '10.0.0.0/8'],
      cookieSecure: 'always',
      loginPath: '/sso/login/',
      sessionIdleMs: 10 * 60_000,
      sessionAbsoluteMs: 8 * 3_600_000,
      logLevel: 'warn',
      requestLogWaitMs: 0,
    });
    expect(config.codeDefaults).toMatchObject({ codeAlphabet: '0123456789', maxUnusedCodes: 2 });
    expect(loadConfig({ DATABASE_URL: 'postgresql://x/y' }).databaseUrl).toBe('postgresql://x/y');
  });

  it.each([
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
  ])('reads the boolean %s as %s', (text, value) => {
    expect(loadConfig({ DEA_DEMO: text }).demo).toBe(value);
  });

  it.each([
    ['false', false],
    ['', false],
    ['1', 1],
    ['2', 2],
    ['127.0.0.1', ['127.0.0.1']],
    ['10.0.0.1,10.0.0.2', ['10.0.0.1', '10.0.0.2']],
    ['10.0.0.0/8, fd00::/8, loopback', ['10.0.0.0/8', 'fd00::/8', 'loopback']],
  ])('reads DEA_TRUST_PROXY=%j as %j', (text, value) => {
    expect(loadConfig({ DEA_TRUST_PROXY: text }).trustProxy).toEqual(value);
  });

  it('reads DEA_VALIDATE_CHECK_CLIENTS and names an entry it cannot read', () => {
    expect(
      loadConfig({ DEA_VALIDATE_CHECK_CLIENTS: ' 10.0.0.5, 10.1.0.0/16,loopback ' }).validateCheck,
    ).toEqual({
      clients: ['10.0.0.5', '10.1.0.0/16', 'loopback'],
    });
    expect(loadConfig({}).validateCheck).toEqual({ clients: [] });
    expect(problemsOf({ DEA_VALIDATE_CHECK_CLIENTS: '10.0.0.5,pam-host' })).toEqual([
      'DEA_VALIDATE_CHECK_CLIENTS="10.0.0.5,pam-host": "pam-host" is not an IP address, a CIDR range (10.0.0.0/8) or one of loopback, linklocal, uniquelocal',
    ]);
  });

  it('refuses DEA_TRUST_PROXY=true with the reason and what to write instead, and proxies it cannot read', () => {
    const [refusal] = problemsOf({ DEA_TRUST_PROXY: 'true' });
    expect(refusal).toMatch(
      /^DEA_TRUST_PROXY="true": refused, because it believes X-Forwarded-For from any client/,
    );
    expect(refusal).toContain('DEA_TRUST_PROXY=10.0.0.1,10.0.0.2');
    expect(refusal).toContain('DEA_TRUST_PROXY=1');
    expect(problemsOf({ DEA_TRUST_PROXY: 'yes' })).toEqual([
      'DEA_TRUST_PROXY="yes": "yes" is not an IP address, a CIDR range (10.0.0.0/8) or one of loopback, linklocal, uniquelocal',
    ]);
    expect(problemsOf({ DEA_TRUST_PROXY: '10.0.0.0/33' })).toHaveLength(1);
    expect(problemsOf({ DEA_TRUST_PROXY: '0' })).toHaveLength(1);
  });

  it.each(['0.0.0.0/0', '0.0.0.0/1,128.0.0.0/1', '::/0', '::/1, 8000::/1', '10.0.0.1, ::ffff:0:0/96'])(
    'refuses DEA_TRUST_PROXY=%j, which trusts nearly every address, with the reason',
    (text) => {
      const problems = problemsOf({ DEA_TRUST_PROXY: text });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^DEA_TRUST_PROXY=".*": refused, because together they cover /);
      expect(problems[0]).toContain('X-Forwarded-For');
      expect(problems[0]).toContain('DEA_TRUST_PROXY=1');
    },
  );

  it('reads the audit export destinations and names what is wrong with each', () => {
    expect(loadConfig({}).auditExport).toBeUndefined();
    expect(
      loadConfig({
        DEA_AUDIT_SYSLOG: 'tls://siem.example.com:6514',
        DEA_AUDIT_FILE: '/var/log/dea/audit.jsonl',
      }).auditExport,
    ).toMatchObject({
      syslog: { transport: 'tls', host: 'siem.example.com', port: 6514, facility: 10 },
      https: undefined,
      file: '/var/log/dea/audit.jsonl',
      buffer: 10_000,
    });
    expect(problemsOf({ DEA_AUDIT_SYSLOG: 'syslog.example.com' })).toEqual([
      'DEA_AUDIT_SYSLOG="syslog.example.com": must be udp://host:port, tcp://host:port or tls://host:port',
    ]);
    expect(problemsOf({ DEA_AUDIT_SYSLOG: 'udp://h:70000' })).toHaveLength(1);
    expect(problemsOf({ DEA_AUDIT_SYSLOG_FACILITY: 'mail' })[0]).toMatch(
      /must be one of auth, daemon, authpriv/,
    );
    expect(problemsOf({ DEA_AUDIT_HTTPS_URL: 'https://siem.example.com/in' })).toEqual([
      'DEA_AUDIT_HTTPS_SECRET: required with DEA_AUDIT_HTTPS_URL, as whsec_ and at least 24 random bytes in base64',
    ]);
    expect(
      problemsOf({ DEA_AUDIT_HTTPS_URL: 'http://siem.example.com/in', DEA_AUDIT_HTTPS_SECRET: 'whsec_x' }),
    ).toEqual(['DEA_AUDIT_HTTPS_URL="http://siem.example.com/in": must be an https:// URL']);
  });

  it('reads DEA_CSP_IMAGE_ORIGINS as origins and refuses anything else', () => {
    expect(
      loadConfig({ DEA_CSP_IMAGE_ORIGINS: 'https://cdn.example.com, https://img.example.com:8443' })
        .cspImageOrigins,
    ).toEqual(['https://cdn.example.com', 'https://img.example.com:8443']);
    expect(contentSecurityPolicy(['https://cdn.example.com'], [])).toContain(
      "img-src 'self' data: https://cdn.example.com;",
    );
    expect(problemsOf({ DEA_CSP_IMAGE_ORIGINS: "https:, https://x.test/path, 'unsafe-inline'" })).toEqual([
      `DEA_CSP_IMAGE_ORIGINS="https:, https://x.test/path, 'unsafe-inline'": "https:", "https://x.test/path", "'unsafe-inline'" is not an origin such as https://cdn.example.com`,
    ]);
  });

  it('refuses booleans it cannot read', () => {
    expect(problemsOf({ DEA_DEMO: 'maybe' })).toEqual(['DEA_DEMO="maybe": must be boolean']);
  });

  it('names every bad field in one error, each once', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      DATABASE_URL: 'mysql://db/dea',
      DEA_DEMO: 'maybe',
      DEA_COOKIE_SECURE: 'sometimes',
      DEA_LOG_LEVEL: 'loud',
      DEA_SESSION_IDLE_MINUTES: '31',
      DEA_SESSION_ABSOLUTE_HOURS: '13',
      DEA_BODY_LIMIT_BYTES: '10',
      DEA_CODE_LENGTH: '4',
      DEA_LOGIN_PATH: 'login',
    });
    const names = problems.map((problem) => problem.split('=')[0]);
    expect(names.sort()).toEqual(
      [
        'PORT',
        'DATABASE_URL',
        'DEA_DEMO',
        'DEA_COOKIE_SECURE',
        'DEA_LOG_LEVEL',
        'DEA_SESSION_IDLE_MINUTES',
        'DEA_SESSION_ABSOLUTE_HOURS',
        'DEA_BODY_LIMIT_BYTES',
        'DEA_CODE_LENGTH',
        'DEA_LOGIN_PATH',
      ].sort(),
    );
    expect(problems).toContain('PORT="eighty": must be integer');
    expect(problems).toContain('DEA_COOKIE_SECURE="sometimes": must be one of auto, always, never');
    expect(problems.find((problem) => problem.startsWith('DEA_LOG_LEVEL'))).toContain('debug');
    try {
      loadConfig({ PORT: 'eighty', DEA_DEMO: 'maybe' });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/PORT[\s\S]*DEA_DEMO/);
    }
  });

  it('bounds the sessions: idle at most 30 minutes, absolute at most 12 hours', () => {
    expect(loadConfig({ DEA_SESSION_IDLE_MINUTES: '30', DEA_SESSION_ABSOLUTE_HOURS: '12' })).toMatchObject({
      sessionIdleMs: 30 * 60_000,
      sessionAbsoluteMs: 12 * 3_600_000,
    });
    expect(problemsOf({ DEA_SESSION_IDLE_MINUTES: '31' })).toEqual([
      'DEA_SESSION_IDLE_MINUTES="31": must be <= 30',
    ]);
    expect(problemsOf({ DEA_SESSION_ABSOLUTE_HOURS: '13' })).toEqual([
      'DEA_SESSION_ABSOLUTE_HOURS="13": must be <= 12',
    ]);
    expect(problemsOf({ DEA_SESSION_IDLE_MINUTES: '0' })).toHaveLength(1);
    expect(problemsOf({ DEA_SESSION_IDLE_MINUTES: '1.5' })).toHaveLength(1);
  });

  it('refuses a code alphabet that repeats a character or is too short, and unsafe code settings', () => {
    expect(problemsOf({ DEA_CODE_ALPHABET: 'ABCDEFGHIJA' })).toEqual([
      'DEA_CODE_ALPHABET: must not repeat a character',
    ]);
    expect(problemsOf({ DEA_CODE_ALPHABET: 'ABC' })).toHaveLength(1);
    expect(problemsOf({ DEA_CODE_LENGTH: '5' })).toHaveLength(1);
    expect(problemsOf({ DEA_CODE_MAX_UNUSED: '0' })).toHaveLength(1);
    expect(problemsOf({ DEA_PASSWORD_HASH_COST: '8' })).toHaveLength(1);
  });

  it('gives every setting a default and a description', () => {
    for (const [name, setting] of Object.entries(SETTINGS)) {
      expect(setting.doc.length, name).toBeGreaterThan(10);
      expect('default' in setting.schema, name).toBe(true);
    }
  });

  it('keeps every default of its own type: loadConfig converts the given values only', () => {
    for (const [name, { schema }] of Object.entries(SETTINGS)) {
      const fallback = (schema as { default?: unknown }).default;
      expect(Value.Convert(schema, structuredClone(fallback)), name).toStrictEqual(fallback);
      expect(Value.Check(schema, fallback), name).toBe(true);
    }
  });
});

describe('the listening addresses', () => {
  it('take IP addresses and host names, and refuse what only looks like an address', () => {
    for (const host of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'dea-1.internal.example']) {
      expect(loadConfig({ HOST: host, DEA_MANAGEMENT_HOST: host }).host).toBe(host);
    }
    for (const host of ['999.1.1.1', '127.0.0.1:8080', 'http://localhost', 'two words', '-leading']) {
      expect(problemsOf({ HOST: host, DEA_MANAGEMENT_PORT: '9000', DEA_MANAGEMENT_HOST: host })).toEqual(
        ['HOST', 'DEA_MANAGEMENT_HOST'].map(
          (name) =>
            `${name}=${JSON.stringify(host)}: not an address to listen on: an IP address (127.0.0.1, ::1, 0.0.0.0 for every address) or a host name such as localhost`,
        ),
      );
    }
  });
});
