/**
 * The floor under the pair of a code's issue and its verification (`request-overhead.ts`, row `floor`): bare Fastify and a store of
 * the product's schema (its tables and indexes, made by its migrations; the embedded store's file,
 * or with FLOOR_DATABASE_URL a PostgreSQL database), doing only what no second factor can leave
 * out of a code on screen and its verification, with nothing of the product's:
 *
 * - `POST /dea/api/tempPass/create`: the session by the hash of its cookie, with its user (one
 *   statement), the cross-site token compared, a code drawn and hashed with a key, the code and
 *   its audit entry written in one transaction (on PostgreSQL one statement);
 * - `POST /dea/api/tempPass/verify`: the service key by id with the user it names (one statement),
 *   the key's secret's hash compared in constant time, the user's usable codes compared (in
 *   constant time; on PostgreSQL by the hash, in the statement), the match used and its audit
 *   entry written in one transaction (on PostgreSQL one statement).
 *
 * No policy, limit, failure count, lockout, seal, log line, metric, header, schema or notice: what
 * the product adds on top of this is its rules. Not the product, never served: a bench's yardstick,
 * started by `request-overhead.ts` (`node --import tsx bench/pair-floor-server.ts`, FLOOR_FILE or
 * FLOOR_DATABASE_URL its store, FLOOR_KEY the code hash's key in hex), printing `floor: <url>`.
 */
import { createHash, createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';

const SESSION_COOKIE = /(?:^|;\s*)dea_session=([^;]+)/;
const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const CODE_LENGTH = 10;
const VALID_MS = 30 * 60 * 1000;

const codeKey = Buffer.from(process.env.FLOOR_KEY ?? '', 'hex');
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const codeHash = (userId: string, code: string): string =>
  createHmac('sha256', codeKey).update(`${userId}:${code}`).digest('hex');
const sameHex = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

interface SessionRow {
  user_id: string;
  disabled: number | boolean;
  ended_at: unknown;
}
interface KeyWithUserRow {
  key_hash: string;
  revoked_at: unknown;
  user_id: string | null;
  disabled: number | boolean | null;
}

/** The pair's statements on one store. */
interface FloorStore {
  sessionOf(idHash: string): Promise<SessionRow | undefined>;
  keyWithUser(keyId: string, username: string): Promise<KeyWithUserRow | undefined>;
  issue(userId: string, code: string, now: number, address: string): Promise<void>;
  verify(userId: string, code: string, now: number, address: string): Promise<boolean>;
}

/** The embedded store's file: statements prepared once, each write one transaction. */
function embeddedFloor(file: string): FloorStore {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const sessionOf = db.prepare<[string], { user_id: string; disabled: number; ended_at: number | null }>(
    'select s.user_id, u.disabled, s.ended_at from sessions s join users u on u.id = s.user_id where s.id_hash = ?',
  );
  const keyWithUser = db.prepare<
    [string, string],
    { key_hash: string; revoked_at: number | null; user_id: string | null; disabled: number | null }
  >(
    'select k.key_hash, k.revoked_at, u.id as user_id, u.disabled from service_keys k left join users u on u.username = ? where k.id = ?',
  );
  const usableOf = db.prepare<[string, number], { id: string; code_hash: string }>(
    'select id, code_hash from codes where user_id = ? and expires_at > ? and uses_left > 0 and invalidated_at is null order by created_at',
  );
  const insertCode = db.prepare(
    'insert into codes (id, user_id, code_hash, created_at, expires_at, uses_left) values (?, ?, ?, ?, ?, 1)',
  );
  const useCode = db.prepare(
    'update codes set uses_left = uses_left - 1, last_used_at = ? where id = ? and uses_left > 0',
  );
  const insertAudit = db.prepare(
    'insert into audit_log (id, at, event, user_id, actor, client_address, details) values (?, ?, ?, ?, ?, ?, ?)',
  );
  const issue = db.transaction((userId: string, code: string, now: number, address: string) => {
    const id = randomUUID();
    insertCode.run(id, userId, codeHash(userId, code), now, now + VALID_MS);
    insertAudit.run(
      randomUUID(),
      now,
      'code.issued',
      userId,
      userId,
      address,
      JSON.stringify({ codeId: id }),
    );
  });
  const verify = db.transaction((userId: string, code: string, now: number, address: string) => {
    const wanted = codeHash(userId, code);
    let matched: string | undefined;
    for (const held of usableOf.all(userId, now)) if (sameHex(held.code_hash, wanted)) matched ??= held.id;
    const used = matched !== undefined && useCode.run(now, matched).changes > 0;
    insertAudit.run(
      randomUUID(),
      now,
      used ? 'code.used' : 'code.verify_failed',
      userId,
      'floor',
      address,
      JSON.stringify(used ? { codeId: matched } : { reason: 'no-usable-code' }),
    );
    return used;
  });
  return {
    sessionOf: async (idHash) => sessionOf.get(idHash),
    keyWithUser: async (keyId, username) => keyWithUser.get(username, keyId),
    issue: async (...values) => issue(...values),
    verify: async (...values) => verify(...values),
  };
}

/**
 * PostgreSQL: each step one statement prepared by name, the writes and their audit entries one
 * statement each (one round trip, one durable commit).
 */
function postgresFloor(url: string): FloorStore {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const one = async <T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) =>
    (await pool.query<T>({ name, text, values })).rows[0];
  return {
    sessionOf: (idHash) =>
      one<SessionRow>(
        'floor_session',
        'select s.user_id, u.disabled, s.ended_at from sessions s join users u on u.id = s.user_id where s.id_hash = $1',
        [idHash],
      ),
    keyWithUser: (keyId, username) =>
      one<KeyWithUserRow>(
        'floor_key',
        'select k.key_hash, k.revoked_at, u.id as user_id, u.disabled from service_keys k left join users u on u.username = $2 where k.id = $1',
        [keyId, username],
      ),
    issue: async (userId, code, now, address) => {
      const id = randomUUID();
      await one(
        'floor_issue',
        `with c as (insert into codes (id, user_id, code_hash, created_at, expires_at, uses_left)
           values ($1, $2, $3, $4, $5, 1) returning id)
         insert into audit_log (id, at, event, user_id, actor, client_address, details)
           select $6, $4, 'code.issued', $2, $2, $7, $8 from c`,
        [
          id,
          userId,
          codeHash(userId, code),
          now,
          now + VALID_MS,
          randomUUID(),
          address,
          JSON.stringify({ codeId: id }),
        ],
      );
    },
    verify: async (userId, code, now, address) => {
      const row = await one<{ used: string | null }>(
        'floor_verify',
        `with m as (select id from codes where user_id = $1 and code_hash = $3 and expires_at > $2
             and uses_left > 0 and invalidated_at is null order by created_at limit 1 for update),
           u as (update codes c set uses_left = c.uses_left - 1, last_used_at = $2 from m
             where c.id = m.id returning c.id),
           a as (insert into audit_log (id, at, event, user_id, actor, client_address, details)
             select $4, $2, case when exists (select 1 from u) then 'code.used' else 'code.verify_failed' end,
               $1, 'floor', $5, '{}' returning 1)
         select (select id from u) as used, (select count(*) from a) as audited`,
        [userId, now, codeHash(userId, code), randomUUID(), address],
      );
      return row?.used !== null && row?.used !== undefined;
    },
  };
}

const store = process.env.FLOOR_DATABASE_URL
  ? postgresFloor(process.env.FLOOR_DATABASE_URL)
  : embeddedFloor(process.env.FLOOR_FILE ?? '');

const app = Fastify();
app.post('/dea/api/tempPass/create', async (request, reply) => {
  const sessionId = SESSION_COOKIE.exec(request.headers.cookie ?? '')?.[1];
  const session = sessionId === undefined ? undefined : await store.sessionOf(sha256(sessionId));
  const xsrf = request.headers['x-xsrf-token'];
  if (
    sessionId === undefined ||
    session === undefined ||
    session.ended_at !== null ||
    Number(session.disabled) !== 0 ||
    typeof xsrf !== 'string' ||
    !sameHex(xsrf, sha256(`xsrf:${sessionId}`))
  )
    return reply.code(401).send({ error: 'unauthorized' });
  let code = '';
  for (let index = 0; index < CODE_LENGTH; index += 1) code += ALPHABET[randomInt(ALPHABET.length)];
  await store.issue(session.user_id, code, Date.now(), request.ip);
  return { result: { rows: [{ password: code }] } };
});
app.post<{ Body: { username?: string; code?: string } }>(
  '/dea/api/tempPass/verify',
  async (request, reply) => {
    const [id, secret] = (request.headers.authorization ?? '').replace(/^Bearer /, '').split('.');
    const { username, code } = request.body;
    const key = id === undefined ? undefined : await store.keyWithUser(id, String(username));
    if (
      key === undefined ||
      secret === undefined ||
      key.revoked_at !== null ||
      !sameHex(key.key_hash, sha256(secret))
    )
      return reply.code(401).send({ error: 'unauthorized' });
    if (typeof username !== 'string' || typeof code !== 'string')
      return reply.code(400).send({ error: 'bad' });
    const valid =
      key.user_id !== null &&
      Number(key.disabled) === 0 &&
      (await store.verify(key.user_id, code, Date.now(), request.ip));
    return { result: { value: { valid } } };
  },
);
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(`floor: http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/`);
// Ended as the product is, so that `--cpu-prof` writes its profile.
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
