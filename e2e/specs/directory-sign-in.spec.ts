import { expect, test } from '@playwright/test';
import { type LdapServer, startLdapServer } from '../../apps/server/src/testing/ldap-server';
import { createLdapTree, DIRECTORY_PEOPLE, type LdapTree } from '../../apps/server/src/testing/ldap-tree';
import { type RunningServer, startServer } from '../support/start-server';
import {
  expectCodeShown,
  expectNoAxeViolations,
  fillSignInForm,
  signInAlert,
  signInForm,
} from '../support/scenarios';

// A deployment of its own: a real slapd with an organisation's tree, and the server reading its
// users from it (StartTLS, a reader account), the directory's vpn group mapped to a group whose
// policy shows codes on screen.
let ldap: LdapServer;
let tree: LdapTree;
let server: RunningServer;

test.beforeAll(async () => {
  ldap = await startLdapServer();
  tree = await createLdapTree(ldap);
  server = await startServer({
    ...tree.settings,
    DEA_LDAP_GROUPS: JSON.stringify({ [tree.groupDn('vpn')]: 'Codes on screen' }),
  });
});

test.afterAll(async () => {
  await server?.stop();
  await tree?.dispose();
  await ldap?.stop();
});

test('a directory user signs in with the directory password and gets a code on screen', async ({ page }) => {
  const { alice } = DIRECTORY_PEOPLE;
  await page.goto(`${server.baseUrl}/login/?ep=${encodeURIComponent(`${server.baseUrl}/dea/`)}`);
  await expect(signInForm(page)).toBeVisible();

  await fillSignInForm(page, alice.uid, 'not her directory password');
  await expect(signInAlert(page)).toContainText('The user name or password is incorrect.');

  await fillSignInForm(page, alice.uid, alice.password);
  await expect(page).toHaveURL(`${server.baseUrl}/dea/`);
  await expectCodeShown(page);
  // Her name came from the directory with her.
  await expect(page.getByTestId('user-summary')).toContainText(alice.cn);
  await expectNoAxeViolations(page);
});

test('a user removed from the directory can no longer sign in', async ({ page, context }) => {
  const { bob } = DIRECTORY_PEOPLE;
  await page.goto(`${server.baseUrl}/login/?ep=${encodeURIComponent(`${server.baseUrl}/dea/`)}`);
  await fillSignInForm(page, bob.uid, bob.password);
  // Bob is in no mapped group: signed in, and told codes are not for him.
  await expect(page).toHaveURL(`${server.baseUrl}/dea/`);
  await expect(page.getByTestId('not-authorized')).toBeVisible();

  const admin = await tree.admin();
  try {
    await admin.del(tree.dnOf('bob'));
  } finally {
    await admin.unbind();
  }
  await context.clearCookies();
  await page.goto(`${server.baseUrl}/login/`);
  await fillSignInForm(page, bob.uid, bob.password);
  await expect(signInAlert(page)).toContainText('The user name or password is incorrect.');
});
