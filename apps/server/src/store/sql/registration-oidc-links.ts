import type { Db } from './db.js';

/** A subject of the OpenID provider linked to a person for the registration of channels (ADR 0033). */
export interface RegistrationOidcLink {
  issuer: string;
  subject: string;
  userId: string;
  linkedAt: number;
}

export interface RegistrationOidcLinkRepository {
  /** The person a subject of the issuer is linked to, or undefined. */
  userOf(issuer: string, subject: string): Promise<string | undefined>;
  /** The subject a person is linked to at the issuer, or undefined. */
  subjectOf(userId: string, issuer: string): Promise<string | undefined>;
  /**
   * Links the subject to the person unless either is linked at this issuer already (in one
   * statement: of two first uses at once, one link is kept). True when this call made the link;
   * false when it was there (whoever's: compare with `userOf` and `subjectOf`).
   */
  link(link: RegistrationOidcLink): Promise<boolean>;
  /** Removes the person's links (every issuer); answers how many. */
  unlinkAll(userId: string): Promise<number>;
}

export function registrationOidcLinkRepository(db: Db): RegistrationOidcLinkRepository {
  return {
    async userOf(issuer, subject) {
      const row = await db
        .selectFrom('registration_oidc_links')
        .select('user_id')
        .where('issuer', '=', issuer)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row?.user_id;
    },
    async subjectOf(userId, issuer) {
      const row = await db
        .selectFrom('registration_oidc_links')
        .select('subject')
        .where('user_id', '=', userId)
        .where('issuer', '=', issuer)
        .executeTakeFirst();
      return row?.subject;
    },
    async link(link) {
      const result = await db
        .insertInto('registration_oidc_links')
        .values({
          issuer: link.issuer,
          subject: link.subject,
          user_id: link.userId,
          linked_at: link.linkedAt,
        })
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async unlinkAll(userId) {
      const result = await db
        .deleteFrom('registration_oidc_links')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
