import { usernameOrThrow } from '@dea/contract';
import { readFileSync } from 'node:fs';
import { Client, InvalidCredentialsError } from 'ldapts';
import { describe, expect } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { signInAttempt } from '../testing/sign-in-attempts.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { AD_LOCKOUT_THRESHOLD, joinDomain, passwordOf } from './active-directory-fixture.js';

const domain = joinDomain();

// A domain controller shared by the run's files, on a machine that may be loaded: generous deadlines.
describe('signing in with Active Directory (Samba 4 as a domain controller)', { timeout: 180_000 }, () => {
  describe.each(DOOR_STORE_KINDS)('on %s', (kind) => {
    appTest.override('storeKind', kind);

    appTest(
      'signs in by sAMAccountName, userPrincipalName and DOMAIN\\name as one person',
      async ({ startApp }) => {
        const t = await startApp(domain.settings);
        const name = await domain.addPerson('ann');
        const ids = new Set<string>();
        for (const typed of [
          name,
          `${name}.p@corp.example`,
          `DEA\\${name}`,
          `dea\\${name.toUpperCase()}`,
          `${name}@dea.test`,
        ]) {
          const answer = await signInAttempt(t, typed, passwordOf(name));
          expect(answer.json(), typed).toMatchObject({ error: 0 });
          ids.add((await t.services.store.users.findByUsername(usernameOrThrow(name)))?.id ?? 'none');
        }
        expect([...ids]).toHaveLength(1);
        expect(ids.has('none')).toBe(false);
        // Another domain before the backslash is nobody.
        expect((await signInAttempt(t, `OTHER\\${name}`, passwordOf(name))).json()).toMatchObject({
          error: 3,
        });
      },
    );

    appTest(
      'three failed sign-ins in three forms count three times against the one person',
      async ({ startApp }) => {
        const t = await startApp({
          ...domain.settings,
          DEA_SIGNIN_MAX_FAILURES: '3',
          DEA_SIGNIN_SLOWDOWN_MS: '0',
        });
        const name = await domain.addPerson('bea');
        for (const typed of [name, `${name}.p@corp.example`, `DEA\\${name}`])
          expect((await signInAttempt(t, typed, 'Wrong-password-1')).json(), typed).toMatchObject({
            error: 3,
          });
        // Each form was typed once; the entry they all found has three failures: locked.
        const answer = (await signInAttempt(t, name, passwordOf(name))).json();
        expect(answer).toMatchObject({ error: 140 });
        const locked = (await t.services.store.audit.list({ limit: 100 })).filter(
          (entry) => entry.event === 'signin.locked',
        );
        expect(locked.map((entry) => entry.details.limit)).toEqual(['entry-address']);
      },
    );

    appTest(
      '30 parallel wrong passwords in three forms reach the domain controller DEA_SIGNIN_MAX_FAILURES times, as its badPwdCount shows',
      async ({ startApp }) => {
        const t = await startApp({ ...domain.settings, DEA_SIGNIN_MAX_FAILURES: '3' });
        const name = await domain.addPerson('par');
        const forms = [name, `${name}.p@corp.example`, `DEA\\${name}`];
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, index) =>
            signInAttempt(t, forms[index % 3] ?? name, 'Wrong-password-1'),
          ),
        );
        expect(answers.every((answer) => answer.json<{ error: number }>().error !== 0)).toBe(true);
        // What Active Directory itself counted: the bad passwords it was sent for this person.
        expect(await domain.badPasswordCount(name)).toBe(3);
        expect((await signInAttempt(t, `DEA\\${name}`, passwordOf(name))).json()).toMatchObject({
          error: 140,
        });
      },
    );

    appTest(
      "tells the person their directory account needs attention and audits AD's reason, never wrong password",
      async ({ startApp }) => {
        const t = await startApp(domain.settings);
        const mustChange = await domain.addPerson('chg');
        await domain.dc.modify(
          `dn: ${domain.dnOf(mustChange)}\nchangetype: modify\nreplace: pwdLastSet\npwdLastSet: 0\n`,
        );
        const disabled = await domain.addPerson('dis');
        await domain.dc.admin.disableUser(disabled);
        const expired = await domain.addPerson('exp');
        await domain.dc.admin.expireUser(expired);
        const passwordExpired = await domain.addPerson('old');
        // A password set in 1970, past the domain's maximum password age (42 days).
        await domain.dc.modify(
          `dn: ${domain.dnOf(passwordExpired)}\nchangetype: modify\nreplace: pwdLastSet\npwdLastSet: 116444736000000000\n`,
          { raw: true },
        );
        const night = await domain.addPerson('hrs');
        // No hour of the week at which this account may sign in.
        await domain.dc.modify(
          `dn: ${domain.dnOf(night)}\nchangetype: modify\nreplace: logonHours\nlogonHours:: ${Buffer.alloc(21).toString('base64')}\n`,
        );
        const locked = await domain.addPerson('lck');
        for (let attempt = 0; attempt < AD_LOCKOUT_THRESHOLD; attempt += 1) {
          const client = new Client({
            url: domain.dc.ldapsUrl,
            tlsOptions: { ca: readFileSync(domain.dc.caFile) },
          });
          await expect(client.bind(domain.dnOf(locked), 'Wrong-password-1')).rejects.toThrow(
            InvalidCredentialsError,
          );
          await client.unbind().catch(() => undefined);
        }

        const cases = [
          [mustChange, 'must-change-password'],
          [disabled, 'disabled'],
          [expired, 'account-expired'],
          [passwordExpired, 'password-expired'],
          [locked, 'locked'],
          [night, 'not-allowed-now'],
        ] as const;
        for (const [name, problem] of cases) {
          for (const language of ['en', 'ar']) {
            const answer = await t.app.inject({
              method: 'POST',
              url: '/login/api/session',
              payload: { username: `DEA\\${name}`, password: passwordOf(name) },
              headers: { 'accept-language': language },
              remoteAddress: '198.51.100.9',
            });
            const body = answer.json<{ error: number; message: string }>();
            expect(body.error, `${name} ${language}`).toBe(3);
            expect(body.message).toBe(await t.services.catalogs.text(language, 'login.directoryAccount'));
            expect(body.message).not.toBe(await t.services.catalogs.text(language, 'login.failed'));
          }
          const user = await t.services.store.users.findByUsername(usernameOrThrow(name));
          expect(user, name).toBeDefined();
          const failures = (await t.services.store.audit.list({ userId: user?.id ?? '', limit: 10 })).filter(
            (entry) => entry.event === 'signin.failed',
          );
          expect(failures.map((entry) => entry.details)).toEqual([
            { reason: 'directory-account', directoryProblem: problem },
            { reason: 'directory-account', directoryProblem: problem },
          ]);
        }
        // A wrong password of a healthy account is still just that.
        const healthy = await domain.addPerson('ok');
        const wrong = (await signInAttempt(t, healthy, 'Wrong-password-1')).json<{ message: string }>();
        expect(wrong.message).toBe(await t.services.catalogs.text('en', 'login.failed'));
      },
    );
  });
});
