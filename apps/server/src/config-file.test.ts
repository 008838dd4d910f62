import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configProblems } from './testing/config-problems.js';
import { loadConfig, loadConfigWithFile } from './config.js';

const folder = mkdtempSync(join(tmpdir(), 'dea-config-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
function file(name: string, content: unknown, mode = 0o600): string {
  const path = join(folder, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content), { mode });
  chmodSync(path, mode);
  return path;
}

const problemsOf = configProblems;

describe('config file', () => {
  it('refuses a secret in a file its group or others may read, naming the file and chmod 600', () => {
    for (const mode of [0o644, 0o640, 0o604, 0o620]) {
      const path = file(
        `open-${mode.toString(8)}.json`,
        { PORT: 9000, DEA_SECRET: Buffer.alloc(32, 3).toString('base64') },
        mode,
      );
      expect(problemsOf(() => loadConfigWithFile({ DEA_CONFIG_FILE: path }))).toEqual([
        `DEA_SECRET (in ${path}): DEA_CONFIG_FILE ${path} may be read by others than its owner (mode 0${mode.toString(8)}): refused, as ssh refuses such a key; run chmod 600 ${path}, or keep the secret in the environment`,
      ]);
    }
    // Without a secret, a readable file is fine; so is a secret in a file of its owner's.
    const open = file('open-plain.json', { PORT: 9000, DEA_SECRET: '' }, 0o644);
    expect(loadConfigWithFile({ DEA_CONFIG_FILE: open }).port).toBe(9000);
    const own = file('own.json', { PORT: 9001, DEA_SMTP_PASSWORD: 'mail password' }, 0o600);
    expect(loadConfigWithFile({ DEA_CONFIG_FILE: own }).port).toBe(9001);
  });

  it('refuses an address carrying a password or key (DATABASE_URL and every _URL) in a file others may read', () => {
    const carrying = {
      DATABASE_URL: 'postgres://dea:db-password@db.example.com/dea',
      DEA_AUDIT_HTTPS_URL: 'https://siem.example.com/ingest?api_key=abc123',
    };
    for (const [name, value] of Object.entries(carrying)) {
      const path = file(`open-${name}.json`, { [name]: value }, 0o644);
      expect(problemsOf(() => loadConfigWithFile({ DEA_CONFIG_FILE: path }))).toContain(
        `${name} (in ${path}): DEA_CONFIG_FILE ${path} may be read by others than its owner (mode 0644): refused, as ssh refuses such a key; run chmod 600 ${path}, or keep the secret in the environment`,
      );
    }
    // In a file of its owner's alone, the same address is taken.
    const own = file('own-database-url.json', { DATABASE_URL: carrying.DATABASE_URL }, 0o600);
    expect(loadConfigWithFile({ DEA_CONFIG_FILE: own }).databaseUrl).toBe(carrying.DATABASE_URL);
    // An address without a credential stays fine in a readable file.
    const plain = file('open-plain-url.json', { DATABASE_URL: 'postgres://db.example.com/dea' }, 0o644);
    expect(loadConfigWithFile({ DEA_CONFIG_FILE: plain }).databaseUrl).toBe('postgres://db.example.com/dea');
  });

  it('reads the settings of the file named by DEA_CONFIG_FILE, JSON values as written', () => {
    const path = file('good.json', {
      PORT: 9000,
      DEA_SMTP_HOST: 'mail.example.com',
      DEA_SMTP_FROM: 'Emergency Access <dea@example.com>',
      DEA_TRUST_PROXY: 1,
      DEA_RADIUS_PORT: 1812,
      DEA_RADIUS_CLIENTS: { '10.0.0.5': 'a-long-random-secret-1' },
    });
    const config = loadConfigWithFile({ DEA_CONFIG_FILE: path });
    expect(config).toMatchObject({ port: 9000, trustProxy: 1 });
    expect(config.delivery.smtp).toMatchObject({ host: 'mail.example.com' });
    expect(config.radius).toMatchObject({ port: 1812 });
  });

  it('lets the environment win over the file; an empty variable leaves the file value', () => {
    const path = file('port.json', { PORT: 9000, HOST: '127.0.0.1' });
    expect(loadConfigWithFile({ DEA_CONFIG_FILE: path, PORT: '9100', HOST: '' })).toMatchObject({
      port: 9100,
      host: '127.0.0.1',
    });
    // The CLI's --config names the file instead.
    expect(loadConfigWithFile({ DEA_CONFIG_FILE: '/nonexistent.json' }, path)).toMatchObject({ port: 9000 });
    // Callers and tests may pass the values directly.
    expect(loadConfig({}, { path: 'inline', values: { PORT: 9200 } })).toMatchObject({ port: 9200 });
    expect(loadConfigWithFile({})).toMatchObject({ port: 8080 });
  });

  it('names every bad field of the file and the environment together, unknown names too', () => {
    const path = file('bad.json', {
      PORT: 'eighty',
      DEA_SESSION_IDLE_MINUTES: 1.5,
      DEA_SMTP_HOST: ['a', 'b'],
      DEA_PROT: 9000,
      DEA_CONFIG_FILE: 'other.json',
    });
    expect(
      problemsOf(() => loadConfigWithFile({ DEA_CONFIG_FILE: path, DEA_DELIVERY_RETRIES: 'many' })),
    ).toEqual([
      `DEA_SMTP_HOST (in ${path}): must be a string, number, boolean or object`,
      `DEA_PROT (in ${path}): not a setting of this product`,
      `DEA_CONFIG_FILE (in ${path}): not a setting of this product`,
      `PORT="eighty" (in ${path}): must be integer`,
      `DEA_SESSION_IDLE_MINUTES="1.5" (in ${path}): must be integer`,
      'DEA_DELIVERY_RETRIES="many": must be integer',
    ]);
  });

  it('reports a file it cannot read or parse, with the bad settings of the environment', () => {
    expect(
      problemsOf(() => loadConfigWithFile({ DEA_CONFIG_FILE: join(folder, 'missing.json'), PORT: 'x' })),
    ).toEqual([
      `DEA_CONFIG_FILE: cannot read ${join(folder, 'missing.json')} (ENOENT)`,
      'PORT="x": must be integer',
    ]);
    const broken = file('broken.json', '{ "PORT": ');
    expect(problemsOf(() => loadConfigWithFile({ DEA_CONFIG_FILE: broken }))).toEqual([
      expect.stringMatching(/^DEA_CONFIG_FILE: .*broken\.json is not valid JSON/),
    ]);
    const list = file('list.json', [{ PORT: 1 }]);
    expect(problemsOf(() => loadConfigWithFile({ DEA_CONFIG_FILE: list }))).toEqual([
      `DEA_CONFIG_FILE: ${list} must hold one JSON object of settings`,
    ]);
  });
});
