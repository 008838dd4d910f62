/**
 * The directory sync and the import at an organisation's scale: Debian's slapd started
 * as the tests' global setup starts it (testing/ldap-server.ts), `--users N` inetOrgPerson users
 * (default 50,000) in 200 groups nested three deep (150 leaf groups of people, 40 middle groups of
 * leaves, 10 top groups of middles; the 10 top and 10 of the leaf groups mapped to product groups),
 * then on each store (`--stores sqlite,postgres`; PostgreSQL a cluster of its own with fsync,
 * synchronous_commit and full_page_writes on): the first sync, a sync with nothing changed, a sync
 * after 100 users changed (their cn) and 50 others were deleted (changes only: it sees the
 * changes), a full pass (`--full`: the rest unchanged, the 50 deleted disabled and out of their
 * groups), and the import of a CSV file of as many rows. Each
 * step is the built `dea` as an operator runs it (its time and peak RSS, as the kernel counts it).
 * `npm run bench:directory` after `npm run build`; prints a Markdown table for docs/benchmarks.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Attribute, Change, Client } from 'ldapts';
import { startServices } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { startLdapServer } from '../src/testing/ldap-server.js';
import { createTestDatabase, durabilityOf, startPostgresCluster } from '../src/testing/postgres-cluster.js';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '50000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
  },
});
const USERS = Number(values.users);
const STORES = (values.stores ?? '').split(',').filter((kind) => kind === 'sqlite' || kind === 'postgres');
const LEAVES = 150;
const MIDDLES = 40;
const TOPS = 10;
const cli = join(import.meta.dirname, '..', 'dist', 'dea.js');
const folder = mkdtempSync(join(tmpdir(), 'dea-directory-bench-'));
// Writes the process's peak resident set as it exits (the kernel's count, children excluded).
const rssProbe = join(folder, 'peak-rss.cjs');
writeFileSync(
  rssProbe,
  "process.on('exit', () => require('node:fs').writeSync(2, `PEAK_RSS_KB ${process.resourceUsage().maxRSS}\\n`));\n",
);

interface Step {
  seconds: number;
  peakMb: number;
  out: string;
}

/** A step that is not measured (a group added). */
function dea(env: NodeJS.ProcessEnv, ...args: string[]): void {
  execFileSync(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** A measured step: its time, its peak RSS and the last line it printed (exit code 1 included: a user failed). */
function measured(env: NodeJS.ProcessEnv, ...args: string[]): Step {
  const started = performance.now();
  // BENCH_PROF=<dir>: each measured step writes its CPU profile there.
  const profile = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const run = spawnSync(process.execPath, [...profile, '-r', rssProbe, cli, ...args], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  // Exit code 1 still prints its summary (a user that failed); anything else stops the run.
  if (run.status !== 0 && run.status !== 1)
    throw new Error(`dea ${args.join(' ')} ended with ${run.status ?? run.signal}:\n${run.stderr}`);
  const peak = /PEAK_RSS_KB (\d+)/.exec(run.stderr)?.[1];
  return {
    seconds,
    peakMb: peak === undefined ? NaN : Number(peak) / 1024,
    out: run.stdout.trim().split('\n').at(-1) ?? '',
  };
}

const userDn = (base: string, index: number) => `uid=user${index},ou=people,${base}`;
const groupDn = (base: string, name: string) => `cn=${name},ou=groups,${base}`;
const leafOf = (index: number) => index % LEAVES;
const entryOf = (index: number) => ({
  objectClass: ['inetOrgPerson'],
  uid: `user${index}`,
  cn: `Person ${index}`,
  sn: `Person ${index}`,
  mail: `user${index}@example.com`,
  mobile: `+49 170 ${String(5550000 + index).padStart(7, '0')}`,
  preferredLanguage: index % 3 === 0 ? 'de' : 'en',
});

/** Runs `work` over the items, `parallel` at a time. */
async function inParallel<T>(
  items: readonly T[],
  parallel: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await work(item);
      }
    }),
  );
}

async function populate(url: string, base: string, adminDn: string, password: string): Promise<void> {
  const clients = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const client = new Client({ url });
      await client.bind(adminDn, password);
      return client;
    }),
  );
  try {
    const [first] = clients as [Client];
    await first.add(`ou=people,${base}`, { objectClass: ['organizationalUnit'], ou: 'people' });
    await first.add(`ou=groups,${base}`, { objectClass: ['organizationalUnit'], ou: 'groups' });
    const indexes = Array.from({ length: USERS }, (_, index) => index);
    let turn = 0;
    await inParallel(indexes, clients.length * 2, async (index) => {
      const client = clients[(turn += 1) % clients.length] as Client;
      await client.add(userDn(base, index), entryOf(index));
    });
    for (let leaf = 0; leaf < LEAVES; leaf += 1) {
      const members = indexes.filter((index) => leafOf(index) === leaf).map((index) => userDn(base, index));
      await first.add(groupDn(base, `leaf${leaf}`), {
        objectClass: ['groupOfNames'],
        cn: `leaf${leaf}`,
        member: members.length > 0 ? members : [userDn(base, 0)],
      });
    }
    for (let middle = 0; middle < MIDDLES; middle += 1) {
      const leaves = Array.from({ length: LEAVES }, (_, leaf) => leaf).filter(
        (leaf) => leaf % MIDDLES === middle,
      );
      await first.add(groupDn(base, `middle${middle}`), {
        objectClass: ['groupOfNames'],
        cn: `middle${middle}`,
        member: leaves.map((leaf) => groupDn(base, `leaf${leaf}`)),
      });
    }
    for (let top = 0; top < TOPS; top += 1) {
      const middles = Array.from({ length: MIDDLES }, (_, middle) => middle).filter(
        (middle) => middle % TOPS === top,
      );
      await first.add(groupDn(base, `top${top}`), {
        objectClass: ['groupOfUniqueNames'],
        cn: `top${top}`,
        uniqueMember: middles.map((middle) => groupDn(base, `middle${middle}`)),
      });
    }
  } finally {
    await Promise.all(clients.map((client) => client.unbind()));
  }
}

/** The users a step changes and removes: 100 get a new cn, 50 others are deleted. */
function changedAndRemoved(round: number): { changed: number[]; removed: number[] } {
  const changeEvery = Math.max(1, Math.floor(USERS / 100));
  const removeEvery = Math.max(1, Math.floor(USERS / 50));
  const changed = Array.from({ length: 100 }, (_, k) => (round + k * changeEvery) % USERS);
  const removed = Array.from(
    { length: 50 },
    (_, k) => (round + Math.floor(changeEvery / 2) + k * removeEvery) % USERS,
  ).filter((index) => !changed.includes(index));
  return { changed, removed };
}

/** 100 users get a new cn and 50 others are deleted from the directory. */
async function changeAndRemove(url: string, base: string, adminDn: string, password: string, round: number) {
  const { changed, removed } = changedAndRemoved(round);
  const client = new Client({ url });
  await client.bind(adminDn, password);
  try {
    for (const index of changed)
      await client.modify(
        userDn(base, index),
        new Change({
          operation: 'replace',
          modification: new Attribute({ type: 'cn', values: [`Changed ${round} ${index}`] }),
        }),
      );
    for (const index of removed) await client.del(userDn(base, index));
  } finally {
    await client.unbind();
  }
  return removed;
}

/** The deleted users back as they were, for the next store's first sync. */
async function addBack(url: string, base: string, adminDn: string, password: string, removed: number[]) {
  const client = new Client({ url });
  await client.bind(adminDn, password);
  try {
    for (const index of removed) await client.add(userDn(base, index), entryOf(index));
  } finally {
    await client.unbind();
  }
}

function importFile(): string {
  const lines = ['username,fullName,locale,timeZone,group,mobile,email'];
  for (let index = 0; index < USERS; index += 1) {
    const number = String(5550000 + index).padStart(7, '0');
    lines.push(
      `imported${index},Imported ${index},en,Europe/Berlin,${index % 2 === 0 ? 'Staff' : 'Contractors'},+49 171 ${number},imported${index}@example.com`,
    );
  }
  const path = join(folder, 'people.csv');
  writeFileSync(path, lines.join('\n'));
  return path;
}

const rows: string[] = [];
const ldap = await startLdapServer();
let cluster: Awaited<ReturnType<typeof startPostgresCluster>> | undefined;
try {
  const started = performance.now();
  await populate(ldap.url, ldap.baseDn, ldap.adminDn, ldap.adminPassword);
  console.error(
    `… ${USERS} users and ${LEAVES + MIDDLES + TOPS} groups added in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const passwordFile = join(folder, 'bind-password');
  writeFileSync(passwordFile, ldap.adminPassword, { mode: 0o600 });
  const mapped = {
    ...Object.fromEntries(
      Array.from({ length: TOPS }, (_, top) => [groupDn(ldap.baseDn, `top${top}`), `Top ${top}`]),
    ),
    ...Object.fromEntries(
      Array.from({ length: 10 }, (_, leaf) => [groupDn(ldap.baseDn, `leaf${leaf}`), `Leaf ${leaf}`]),
    ),
  };
  const csv = importFile();
  let round = 0;
  for (const kind of STORES) {
    let databaseUrl: string | undefined;
    let durability = '';
    if (kind === 'postgres') {
      cluster ??= await startPostgresCluster({}, { durable: true });
      databaseUrl = (await createTestDatabase(cluster.url)).url;
      durability = Object.entries(await durabilityOf(databaseUrl))
        .map(([name, value]) => `${name}=${value}`)
        .join(', ');
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DEA_DATA_DIR: join(folder, `data-${kind}`),
      ...(databaseUrl !== undefined && { DATABASE_URL: databaseUrl }),
      DEA_SECRET: Buffer.alloc(32, 3).toString('base64'),
      DEA_LOG_LEVEL: 'silent',
      DEA_LDAP_URL: ldap.url,
      DEA_LDAP_CA_FILE: ldap.caFile,
      DEA_LDAP_BASE_DN: ldap.baseDn,
      DEA_LDAP_BIND_DN: ldap.adminDn,
      DEA_LDAP_BIND_PASSWORD_FILE: passwordFile,
      DEA_LDAP_ATTRIBUTES: '{"locale":"preferredLanguage"}',
      DEA_LDAP_GROUPS: JSON.stringify(mapped),
    };
    const { services } = await startServices(loadConfig(env));
    await services.store.close();
    const label = kind === 'sqlite' ? 'embedded' : `PostgreSQL (${durability})`;
    const step = (name: string, result: Step) =>
      rows.push(
        `| ${label} | ${name} | ${result.seconds.toFixed(1)} | ${result.peakMb.toFixed(0)} | ${result.out.replace(/\|/g, '\\|')} |`,
      );
    step('first sync', measured(env, 'directory', 'sync'));
    step('nothing changed', measured(env, 'directory', 'sync'));
    round += 1;
    const removed = await changeAndRemove(ldap.url, ldap.baseDn, ldap.adminDn, ldap.adminPassword, round);
    // A changes-only sync sees the changed entries; only a full pass sees deletions.
    step('100 changed, 50 removed (changes only)', measured(env, 'directory', 'sync'));
    step(
      `full pass (${USERS - removed.length} unchanged, ${removed.length} removed)`,
      measured(env, 'directory', 'sync', '--full'),
    );
    await addBack(ldap.url, ldap.baseDn, ldap.adminDn, ldap.adminPassword, removed);
    // The import's users are of their own source; without the directory, as an import is run
    // where none is set (with one, each new name is first asked of it).
    const importEnv = { ...env, DEA_LDAP_URL: '' };
    dea(importEnv, 'group', 'add', '--name', 'Staff', '--priority', '5');
    dea(importEnv, 'group', 'add', '--name', 'Contractors', '--priority', '1');
    step(`import of ${USERS.toLocaleString('en')} rows`, measured(importEnv, 'user', 'import', csv));
    console.error(rows.slice(-5).join('\n'));
  }
  console.log(
    `| store | ${USERS.toLocaleString('en')} users | seconds | peak RSS (MB) | the command's summary |`,
  );
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  await cluster?.stop();
  await ldap.stop();
  rmSync(folder, { recursive: true, force: true });
}
