import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { EMBEDDED_STORE_FILE, openStore } from '../store/open-store.js';

/**
 * A migrated store of each kind, made once per run by the global setup (testing/global-setup.ts):
 * a test's fresh store is a copy of it (the SQLite file copied, the PostgreSQL database made with
 * it as its TEMPLATE) and opens with nothing left to migrate. Running the 30-odd migrations for
 * every test's store cost about 25 ms of CPU on SQLite and 190 to 290 ms on PostgreSQL (client and
 * server), the copy 5 and 130 (docs/benchmarks.md). The migrations themselves are still run: here,
 * once per run and store kind, and by the tests that migrate a store of their own.
 */
export interface StoreTemplates {
  /** The migrated embedded store, to be copied into a test's data folder as EMBEDDED_STORE_FILE. */
  sqliteFile: string;
  /** The migrated PostgreSQL database (on the run's server) that a test's database is made from. */
  postgresDatabase: string;
  /** The table (in the server's admin database) listing emptied test databases ready for reuse. */
  postgresSpares: string;
  /** What the template's schema is made of, as one digest (SCHEMA_DIGEST): a spare must match it. */
  postgresSchema: string;
}

/**
 * One digest of everything in a database besides its rows: schemas, tables, views, indexes,
 * columns with their types and defaults, constraints, functions, triggers, grants and options,
 * extensions, the database's own settings, and which migrations it records. Two databases with
 * the same digest open as the same store; a test that changed any of it leaves a digest of its own.
 */
const SCHEMA_DIGEST = `md5(concat_ws('|',
  (select string_agg(format('%s.%s:%s:%s:%s:%s', n.nspname, c.relname, c.relkind, c.relacl, c.reloptions, c.relpersistence), ',' order by n.nspname, c.relname)
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg_temp%' and n.nspname not like 'pg_toast_temp%'),
  (select string_agg(format('%s.%s:%s:%s:%s:%s', a.attrelid::regclass, a.attname, a.atttypid::regtype, a.attnotnull, a.attisdropped, pg_get_expr(d.adbin, d.adrelid)), ',' order by a.attrelid::regclass::text, a.attnum)
     from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
     left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attnum > 0 and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg_temp%' and n.nspname not like 'pg_toast_temp%'),
  (select string_agg(format('%s:%s:%s', conrelid::regclass, conname, pg_get_constraintdef(oid)), ',' order by conrelid::regclass::text, conname)
     from pg_constraint where connamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)),
  (select string_agg(format('%s.%s(%s):%s:%s', pronamespace::regnamespace, proname, pg_get_function_arguments(oid), md5(prosrc), proacl), ',' order by 1)
     from pg_proc where pronamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)),
  (select string_agg(format('%s:%s:%s:%s', tgrelid::regclass, tgname, tgenabled, tgfoid::regproc), ',' order by 1)
     from pg_trigger where not tgisinternal),
  (select string_agg(format('%s:%s', ev_class::regclass, md5(ev_action::text)), ',' order by 1) from pg_rewrite
    where ev_class not in (select oid from pg_class where relnamespace in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace))),
  (select string_agg(format('%s:%s', evtname, evtenabled), ',' order by 1) from pg_event_trigger),
  (select string_agg(format('%s:%s', polrelid::regclass, polname), ',' order by 1) from pg_policy),
  (select string_agg(extname || ':' || extversion, ',' order by 1) from pg_extension),
  (select string_agg(array_to_string(setconfig, ';'), ',' order by 1) from pg_db_role_setting
    where setdatabase = (select oid from pg_database where datname = current_database())),
  (select format('%s:%s', datconnlimit, datallowconn) from pg_database where datname = current_database()),
  (select string_agg(name, ',' order by name) from kysely_migration)
))`;

/**
 * Empties a spare for its next test when its schema is still the template's (SCHEMA_DIGEST): ends
 * every connection a test left open, then one TRUNCATE of each table whose heap is not empty (the
 * store has no sequences; RESTART IDENTITY would reset any a table owned). A table a test wrote a
 * row to has a page at least, even when the row was deleted or rolled back since; one truncated or
 * never written has none. Its size is one look at a file, no statement per table
 * (docs/benchmarks.md, "The test suite"). Raises if the schema changed.
 */
function emptyingOf(schema: string): string {
  return `do $empty$
declare
  tables text;
begin
  perform pg_terminate_backend(pid) from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()
      and application_name is distinct from '${EMPTYING_CONNECTION}';
  if (select count(*) from pg_prepared_xacts where database = current_database()) > 0
     or ${SCHEMA_DIGEST} <> '${schema}' then
    raise exception 'changed by its test: not reusable';
  end if;
  select string_agg(format('%I.%I', n.nspname, c.relname), ', ') into tables
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and c.relkind = 'r'
     and c.relname not in ('kysely_migration', 'kysely_migration_lock')
     and pg_relation_size(c.oid) > 0;
  if tables is not null then
    execute 'truncate ' || tables || ' restart identity cascade';
  end if;
end $empty$`;
}

export async function makeStoreTemplates(
  postgresUrl: string,
): Promise<StoreTemplates & { drop(): Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), 'dea-store-template-'));
  await (await openStore({ dataDir: folder })).close();
  const postgresDatabase = `dea_template_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const postgresSpares = `${postgresDatabase}_spares`;
  await adminQuery(postgresUrl, `CREATE DATABASE ${postgresDatabase}`);
  await adminQuery(postgresUrl, `CREATE TABLE ${postgresSpares} (name text PRIMARY KEY)`);
  const url = new URL(postgresUrl);
  url.pathname = `/${postgresDatabase}`;
  // No connection to it may stay open: PostgreSQL copies a template nobody is connected to.
  await (await openStore({ dataDir: folder, databaseUrl: url.toString() })).close();
  const postgresSchema = await withClient(url.toString(), async (client) => {
    const { rows } = await client.query<{ digest: string }>(`select ${SCHEMA_DIGEST} as digest`);
    return rows[0]?.digest ?? '';
  });
  return {
    sqliteFile: join(folder, EMBEDDED_STORE_FILE),
    postgresDatabase,
    postgresSpares,
    postgresSchema,
    async drop() {
      rmSync(folder, { recursive: true, force: true });
      await withClient(postgresUrl, async (admin) => {
        const { rows } = await admin.query<{ name: string }>(`select name from ${postgresSpares}`);
        for (const { name } of rows) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.query(`DROP TABLE ${postgresSpares}`);
        await admin.query(`DROP DATABASE IF EXISTS ${postgresDatabase} WITH (FORCE)`);
      });
    },
  };
}

/**
 * A test's own PostgreSQL database, as a new copy of the template would be: a spare another test
 * released (emptied, its schema still the template's) when there is one, else a new copy. Making
 * and dropping a copy cost the server about 120 ms of CPU a test, emptying a spare about 30
 * (docs/benchmarks.md, "The test suite"). `release()` ends the connections left to it and makes
 * it a spare again, or drops it when its test changed its schema or it cannot be emptied. The
 * spares are shared by the run's workers (a table in the admin database) and dropped at its end.
 */
export async function leaseTestDatabase(
  adminUrl: string,
  templates: StoreTemplates,
): Promise<{ url: string; name: string; release(): Promise<void> }> {
  const spares = templates.postgresSpares;
  const admin = adminPool(adminUrl);
  const { rows } = await admin.query<{ name: string }>(
    `DELETE FROM ${spares} WHERE name = (SELECT name FROM ${spares} LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING name`,
  );
  let name = rows[0]?.name;
  if (name === undefined) {
    name = `dea_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templates.postgresDatabase}`);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async release() {
      const emptied = await keptPool(url.toString(), EMPTYING_CONNECTION, 1)
        .query(emptyingOf(templates.postgresSchema))
        .then(
          () => true,
          () => false,
        );
      await (emptied
        ? admin.query(`INSERT INTO ${spares} (name) VALUES ($1)`, [name])
        : admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * The application name of the connections that empty spares: an emptying ends every other
 * connection to its database, but not these, which another worker keeps for its own next emptying.
 */
const EMPTYING_CONNECTION = 'dea-test-emptying';

/**
 * The process's connections, one pool per database and use, kept across tests and files: to the
 * run's admin database for every lease and release, and to each spare it has emptied for its next
 * emptying. A connection of its own cost PostgreSQL about 8 ms of CPU and node-postgres about 3;
 * the emptying's schema digest costs about 13 ms more on a new connection than on one that has
 * read the catalogs before (docs/benchmarks.md, "The test suite"). The map lives on `globalThis`
 * because each file of a worker evaluates this module afresh (ADR 0049) while the worker stays.
 * Idle connections never keep the process alive, and one the server ends (a test that ends every
 * connection to its database, a spare dropped, the run's end) is dropped by its pool.
 */
const KEPT_POOLS = Symbol.for('dea.testing.keptPools');
const keptPools: Map<string, pg.Pool> = ((globalThis as { [KEPT_POOLS]?: Map<string, pg.Pool> })[
  KEPT_POOLS
] ??= new Map<string, pg.Pool>());

function keptPool(url: string, applicationName: string, max: number): pg.Pool {
  const key = `${applicationName} ${url}`;
  let pool = keptPools.get(key);
  if (pool === undefined) {
    pool = new pg.Pool({
      connectionString: url,
      max,
      allowExitOnIdle: true,
      application_name: applicationName,
    });
    pool.on('error', () => undefined);
    keptPools.set(key, pool);
  }
  return pool;
}

const adminPool = (adminUrl: string): pg.Pool => keptPool(adminUrl, 'dea-test-admin', 2);

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  await withClient(adminUrl, (client) => client.query(text));
}
