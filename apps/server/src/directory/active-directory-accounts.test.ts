import { usernameOrThrow } from '@dea/contract';
import { describe, expect } from 'vitest';
import { appTest } from '../testing/fixtures.js';
import { signInAttempt } from '../testing/sign-in-attempts.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { joinDomain, passwordOf } from './active-directory-fixture.js';
import { protectedAdminsWarning } from './protected-admins.js';

const domain = joinDomain();

// A domain controller shared by the run's files, on a machine that may be loaded: generous deadlines.
describe('the accounts of Active Directory (Samba 4 as a domain controller)', { timeout: 180_000 }, () => {
  appTest(
    'the default filter takes people only: no system accounts, computers or the service account',
    async () => {
      const alice = await domain.addPerson('alice');
      const directory = domain.directoryOf();
      const names: string[] = [];
      for await (const page of directory.allUsers()) names.push(...page.map((user) => user.username));
      await directory.close();
      expect(names).toContain(alice);
      for (const system of ['Administrator', 'krbtgt', 'Guest', domain.dnsAccount, 'DC1$', domain.reader])
        expect(names).not.toContain(system);
    },
  );

  appTest('the start warns of the protected administrators the filter would take, naming them', async () => {
    const admin = await domain.addPerson('opadmin');
    await domain.dc.admin.addMembers('Domain Admins', [admin]);
    // What AD's SDProp sets on members of protected groups.
    await domain.dc.modify(
      `dn: ${domain.dnOf(admin)}\nchangetype: modify\nreplace: adminCount\nadminCount: 1\n`,
    );
    const allowed = domain.directoryOf({ DEA_LDAP_AD_PROTECTED_ADMINS: 'true' });
    const warning = await protectedAdminsWarning(allowed);
    await allowed.close();
    expect(warning).toContain(admin);
    expect(warning).toContain('DEA_LDAP_AD_PROTECTED_ADMINS');
    const left = domain.directoryOf();
    expect(await protectedAdminsWarning(left)).toBeUndefined();
    await left.close();
  });

  describe.each(DOOR_STORE_KINDS)('sign-in on %s', (kind) => {
    appTest.override('storeKind', kind);

    appTest("refuses Administrator, with the domain administrator's password", async ({ startApp }) => {
      const t = await startApp(domain.settings);
      expect((await signInAttempt(t, 'Administrator', domain.dc.adminPassword)).json()).toMatchObject({
        error: 3,
      });
      expect(await t.services.store.users.findByUsername(usernameOrThrow('administrator'))).toBeUndefined();
    });

    appTest(
      'an account AD protects as an administrator signs in only when the setting allows it',
      async ({ startApp }) => {
        const admin = await domain.addPerson('prot');
        await domain.dc.modify(
          `dn: ${domain.dnOf(admin)}\nchangetype: modify\nreplace: adminCount\nadminCount: 1\n`,
        );
        const refused = await startApp(domain.settings);
        expect((await signInAttempt(refused, admin, passwordOf(admin))).json()).toMatchObject({ error: 3 });
        const allowed = await startApp({ ...domain.settings, DEA_LDAP_AD_PROTECTED_ADMINS: 'true' });
        expect((await signInAttempt(allowed, admin, passwordOf(admin))).json()).toMatchObject({ error: 0 });
      },
    );
  });
});
