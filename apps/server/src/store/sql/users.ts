import { type Username } from '@dea/contract';
import { sql } from 'kysely';
import { flag, type Db, type Dialect } from './db.js';
import { dialectSql } from './dialect-sql.js';
import type { HotPath } from './hot-path/hot-path.js';
import { orderTermsOf, type RowFilter, type RowOrder, whereOf } from './row-filter.js';
import { helpDeskCandidates, type HelpDeskCandidate, type HelpDeskSearch } from './help-desk-search.js';
import { toUser } from './user-row.js';

export interface User {
  id: string;
  /** Canonical (RFC 8265): the one spelling every door compares, limits and audits. */
  username: Username;
  passwordHash: string;
  fullName: string;
  /** The user's language; null: none, the page's language rule applies (messages: the request's, else English). */
  locale: string | null;
  disabled: boolean;
  createdAt: number;
  lastLoginAt: number | null;
  currentLoginAt: number | null;
  /** IANA time zone of times in the user's messages; null: the deployment's DEA_TIME_ZONE. */
  timeZone: string | null;
  /** Where the user comes from; only local users have a password of their own. */
  source: UserSource;
  /** The source's own id of the user (directory entryUUID/objectGUID, SCIM id); null for local users. */
  externalId: string | null;
  /** SCIM's name.givenName and name.familyName; null: none given. */
  givenName: string | null;
  familyName: string | null;
  /** The channel key of the e-mail address and of the phone number marked primary; null: none. */
  primaryEmail: string | null;
  primaryPhone: string | null;
  /**
   * SCIM's displayName and name.formatted as the client gave them; null: unassigned. The full name
   * is made of them (else of the given and family name, else of the user name).
   */
  displayName: string | null;
  formattedName: string | null;
  /** When the user last changed (SCIM's meta.lastModified); null: not since created. */
  updatedAt: number | null;
}

/** A user found by name, with their policy of one category (undefined: their groups set none). */
export interface UserWithPolicy {
  user: User;
  policy: Record<string, unknown> | undefined;
}

/** What a filter of users compares: their columns, and `last_modified` (updated, else created). */
export type UserFilterColumn =
  | 'id'
  | 'username'
  | 'external_id'
  | 'full_name'
  | 'display_name'
  | 'formatted_name'
  | 'given_name'
  | 'family_name'
  | 'locale'
  | 'time_zone'
  | 'disabled'
  | 'created_at'
  | 'last_modified';

const userFilterColumn = (column: UserFilterColumn) =>
  column === 'last_modified' ? sql`coalesce(updated_at, created_at)` : sql.ref(`users.${column}`);

export const USER_SOURCES = ['local', 'ldap', 'scim', 'import'] as const;

export type UserSource = (typeof USER_SOURCES)[number];

export interface NewUser {
  id: string;
  username: Username;
  passwordHash: string;
  fullName: string;
  locale: string | null;
  createdAt: number;
  timeZone?: string | null;
  source?: UserSource;
  externalId?: string | null;
  givenName?: string | null;
  familyName?: string | null;
  primaryEmail?: string | null;
  primaryPhone?: string | null;
  displayName?: string | null;
  formattedName?: string | null;
}

export interface UserRepository {
  create(user: NewUser): Promise<void>;
  findById(id: string): Promise<User | undefined>;
  /**
   * The user, read for a change within a transaction: their row stays locked until it ends, so
   * that of two writers at once the second reads what the first wrote (FOR UPDATE on PostgreSQL;
   * the embedded store runs one writing transaction at a time).
   */
  findForChange(id: string): Promise<User | undefined>;
  findByUsername(username: Username): Promise<User | undefined>;
  /** The user by name and their policy of `category`, read together (the hot path's). */
  findByUsernameWithPolicy(username: Username, category: string): Promise<UserWithPolicy | undefined>;
  findByExternalId(source: UserSource, externalId: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  /** The help desk's search: candidates with their groups and policy, in one statement (help-desk-search.ts). */
  helpDeskCandidates(search: HelpDeskSearch): Promise<HelpDeskCandidate[]>;
  listOfSource(source: UserSource): Promise<User[]>;
  /**
   * A page of the source's users' ids and external ids, by id after `after` (a sync's full pass
   * walks them a page at a time, the server's requests served between pages).
   */
  externalIdsOfSource(
    source: UserSource,
    after: string | undefined,
    limit: number,
  ): Promise<{ id: string; externalId: string | null }[]>;
  /** The source's users the filter selects (evaluated by the store), in that order, else by user name. */
  listOfSourceWhere(
    source: UserSource,
    filter: RowFilter<UserFilterColumn>,
    order?: RowOrder<UserFilterColumn>,
  ): Promise<User[]>;
  update(
    id: string,
    changes: Partial<
      Pick<
        User,
        | 'username'
        | 'fullName'
        | 'locale'
        | 'disabled'
        | 'passwordHash'
        | 'timeZone'
        | 'source'
        | 'externalId'
        | 'givenName'
        | 'familyName'
        | 'primaryEmail'
        | 'primaryPhone'
        | 'displayName'
        | 'formattedName'
        | 'updatedAt'
      >
    >,
  ): Promise<boolean>;
  remove(id: string): Promise<boolean>;
  /** The current sign-in becomes the last one; answers the user as it is afterwards. */
  recordSignIn(id: string, at: number): Promise<User | undefined>;
  count(): Promise<number>;
  /** Replaces the hash only while it is still `current` (a rehash never undoes a password change). */
  replacePasswordHash(id: string, current: string, next: string): Promise<boolean>;
  /** The password-hash cost most users' hashes have; undefined without users. */
  mostCommonPasswordCost(): Promise<number | undefined>;
}

export function userRepository(db: Db, dialect: Dialect, hot: HotPath): UserRepository {
  const sqlOf = dialectSql(dialect);
  return {
    async create(user) {
      await db
        .insertInto('users')
        .values({
          id: user.id,
          username: user.username,
          password_hash: user.passwordHash,
          full_name: user.fullName,
          locale: user.locale,
          disabled: 0,
          created_at: user.createdAt,
          last_login_at: null,
          current_login_at: null,
          time_zone: user.timeZone ?? null,
          source: user.source ?? 'local',
          external_id: user.externalId ?? null,
          // Named only when given: the columns default to null (and a store not yet migrated to 0019 takes the rest).
          ...(typeof user.givenName === 'string' && { given_name: user.givenName }),
          ...(typeof user.familyName === 'string' && { family_name: user.familyName }),
          ...(typeof user.primaryEmail === 'string' && { primary_email: user.primaryEmail }),
          ...(typeof user.primaryPhone === 'string' && { primary_phone: user.primaryPhone }),
          ...(typeof user.displayName === 'string' && { display_name: user.displayName }),
          ...(typeof user.formattedName === 'string' && { formatted_name: user.formattedName }),
        })
        .execute();
    },
    findById: (id) => hot.userById(id),
    async findForChange(id) {
      const query = db.selectFrom('users').selectAll().where('id', '=', id);
      // NO KEY UPDATE: changes of the same user wait for each other, while rows that merely refer
      // to the user (a code issued, a membership added: their foreign keys take KEY SHARE) do not
      // wait, nor hold a group writer that waits for this change (a deadlock otherwise).
      const row = await sqlOf.lockedForChange(query).executeTakeFirst();
      return row && toUser(row);
    },
    findByUsername: (username) => hot.userByUsername(username),
    findByUsernameWithPolicy: (username, category) => hot.userWithPolicy(username, category),
    helpDeskCandidates: (search) => helpDeskCandidates(db, dialect, search),
    async findByExternalId(source, externalId) {
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('source', '=', source)
        .where('external_id', '=', externalId)
        .executeTakeFirst();
      return row && toUser(row);
    },
    async listOfSource(source) {
      const rows = await db
        .selectFrom('users')
        .selectAll()
        .where('source', '=', source)
        .orderBy('username')
        .execute();
      return rows.map(toUser);
    },
    async externalIdsOfSource(source, after, limit) {
      let query = db.selectFrom('users').select(['id', 'external_id']).where('source', '=', source);
      if (after !== undefined) query = query.where('id', '>', after);
      const rows = await query.orderBy('id').limit(limit).execute();
      return rows.map((row) => ({ id: row.id, externalId: row.external_id }));
    },
    async listOfSourceWhere(source, filter, order) {
      const selected = db
        .selectFrom('users')
        .selectAll()
        .where('source', '=', source)
        .where(whereOf(filter, userFilterColumn, dialect));
      const rows = await (order === undefined
        ? selected.orderBy('username')
        : orderTermsOf(order, userFilterColumn, dialect)
            .reduce((query, term) => query.orderBy(term), selected)
            .orderBy('id')
      ).execute();
      return rows.map(toUser);
    },
    async list() {
      const rows = await db.selectFrom('users').selectAll().orderBy('username').execute();
      return rows.map(toUser);
    },
    async update(id, changes) {
      const values = {
        ...(changes.username !== undefined && { username: changes.username }),
        ...(changes.source !== undefined && { source: changes.source }),
        ...(changes.externalId !== undefined && { external_id: changes.externalId }),
        ...(changes.fullName !== undefined && { full_name: changes.fullName }),
        ...(changes.locale !== undefined && { locale: changes.locale }),
        ...(changes.disabled !== undefined && { disabled: flag(changes.disabled) }),
        ...(changes.passwordHash !== undefined && { password_hash: changes.passwordHash }),
        ...(changes.timeZone !== undefined && { time_zone: changes.timeZone }),
        ...(changes.givenName !== undefined && { given_name: changes.givenName }),
        ...(changes.familyName !== undefined && { family_name: changes.familyName }),
        ...(changes.primaryEmail !== undefined && { primary_email: changes.primaryEmail }),
        ...(changes.primaryPhone !== undefined && { primary_phone: changes.primaryPhone }),
        ...(changes.displayName !== undefined && { display_name: changes.displayName }),
        ...(changes.formattedName !== undefined && { formatted_name: changes.formattedName }),
        ...(changes.updatedAt !== undefined && { updated_at: changes.updatedAt }),
      };
      if (Object.keys(values).length === 0) return (await this.findById(id)) !== undefined;
      const result = await db.updateTable('users').set(values).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async remove(id) {
      const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async recordSignIn(id, at) {
      const row = await db
        .updateTable('users')
        .set((eb) => ({ last_login_at: eb.ref('current_login_at'), current_login_at: at }))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toUser(row);
    },
    async replacePasswordHash(id, current, next) {
      const result = await db
        .updateTable('users')
        .set({ password_hash: next })
        .where('id', '=', id)
        .where('password_hash', '=', current)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async mostCommonPasswordCost() {
      // The parameters lead every stored hash: `scrypt$ln=17,r=8,p=1$...`.
      const parameters = sql<string>`substr(password_hash, 1, 21)`;
      const row = await db
        .selectFrom('users')
        .select([parameters.as('parameters'), (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy(parameters)
        .orderBy('n', 'desc')
        .limit(1)
        .executeTakeFirst();
      const cost = row && /^scrypt\$ln=(\d+),/.exec(row.parameters)?.[1];
      return cost ? Number(cost) : undefined;
    },
    async count() {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
