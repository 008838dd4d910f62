import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The server's layers (docs/architecture.md) as eslint.config.js holds them: the repository's own
 * configuration, with only its no-restricted-imports rule run and without type information (the
 * rule reads import strings, not types), so a file is linted in milliseconds. That the tree as it
 * is keeps them is `npm test`'s lint step (scripts/check-code.mjs), which runs this rule on every
 * source with the others; linting the whole tree here again took 21 s of each run.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RULE = 'no-restricted-imports';

const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: {
    languageOptions: { parserOptions: { program: null, project: false, projectService: false } },
  },
  ruleFilter: ({ ruleId }) => ruleId === RULE,
});

/** The messages of the layer rule for `code` as if it were the file at `path` (under apps/server/src/). */
async function refusals(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}apps/server/src/${path}` });
  return (result?.messages ?? []).map((message) => `${message.ruleId ?? 'parse'}: ${message.message}`);
}

const importOf = (from: string) => `import { x } from '${from}';\nexport const y = x;\n`;

describe('the layer rules of the server (ESLint)', () => {
  it.each([
    ['store/store.ts', '../domain/audit/audit-events.js', /store\/ is the bottom layer/],
    ['store/sql/users.ts', '../../domain/identity/user-names.js', /store\/ is the bottom layer/],
    ['store/sql/codes.ts', '../../delivery/notices.js', /store\/ is the bottom layer/],
    ['store/open-store.ts', '../http/envelope.js', /store\/ is the bottom layer/],
    ['store/schema.ts', '../cli/command.js', /store\/ is the bottom layer/],
    ['store/schema.ts', '../routes/login-routes.js', /store\/ is the bottom layer/],
    ['domain/page/sign-in.ts', '../../directory/ldap-directory.js', /domain\/ imports no door/],
    ['domain/channels/send-code.ts', '../../delivery/compose.js', /declare a port in domain\/ports\//],
    ['domain/codes/issue-code.ts', '../../delivery/notices.js', /domain\/ imports no door/],
    ['domain/retention/secret-rotation.ts', '../../delivery/outbox-provider.js', /domain\/ imports no door/],
    [
      'domain/retention/retention.ts',
      '../../audit-export/audit-export-settings.js',
      /domain\/ imports no door/,
    ],
    ['domain/help-desk/help-desk.ts', '../../routes/console/help-desk-routes.js', /domain\/ imports no door/],
    ['domain/ports/code-delivery.ts', '../../http/types.js', /domain\/ imports no door/],
    ['domain/page/sessions.ts', '../../cli/command.js', /domain\/ imports no door/],
    ['domain/settings/administration.ts', '../../services.js', /not the composition/],
    ['domain/settings/administration.ts', '../../bootstrap.js', /domain\/ imports no door/],
    ['directory/scheduled-sync.ts', '../http/types.js', /An adapter .* never a door/],
    ['radius/start-radius.ts', '../cli/command.js', /An adapter .* never a door/],
    ['delivery/notices.ts', '../routes/api/code-routes.js', /An adapter .* never a door/],
    ['audit-export/audit-export.ts', '../app.js', /An adapter .* never a door/],
    ['webhooks/webhook-sender.ts', '../http/envelope.js', /An adapter .* never a door/],
    ['audit-export/audit-export.ts', '../webhooks/webhook-destination.js', /nor another adapter/],
    ['webhooks/webhook-destination.ts', '../audit-export/audit-destination.js', /nor another adapter/],
    ['scim/scim-filter.ts', '../user-import/import-users.js', /nor another adapter/],
    ['directory/sub/ldap.ts', '../../delivery/notices.js', /nor another adapter/],
    ['http/security-headers.ts', '../routes/page-without-session.js', /http\/ is what every route shares/],
    ['http/types.ts', '../app.js', /http\/ is what every route shares/],
    ['http/envelope.ts', '../scim/scim-errors.js', /http\/ is what every route shares/],
    ['net/signed-post.ts', '../webhooks/standard-webhooks.js', /net\/ is network plumbing/],
    ['net/backoff.ts', '../domain/audit/audit-trail.js', /net\/ is network plumbing/],
  ])('refuses %s importing %s', async (path, from, message) => {
    const found = await refusals(path, importOf(from));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(RULE);
    expect(found[0]).toMatch(message);
  });

  it.each([
    ['store/sql/users.ts', '../store.js'],
    ['store/store.ts', '@dea/contract'],
    ['domain/page/sign-in.ts', '../identity/user-directory.js'],
    ['domain/channels/send-code.ts', '../ports/code-delivery.js'],
    ['domain/page/sessions.ts', '../../store/store.js'],
    ['domain/page/sessions.ts', '../../crypto/keyed-hash.js'],
    ['delivery/notices.ts', '../domain/ports/code-delivery.js'],
    ['directory/ldap-directory.ts', '../domain/identity/user-directory.js'],
    ['directory/scheduled-sync.ts', '../services.js'],
    ['audit-export/audit-export.ts', '../store/store.js'],
    ['audit-export/audit-export.ts', '../domain/ports/audit-destination.js'],
    ['webhooks/webhook-destination.ts', '../net/signed-post.js'],
    ['directory/ldap-directory.ts', './ldap-filters.js'],
    ['http/envelope.ts', '../domain/api-error.js'],
    ['net/signed-post.ts', './standard-webhooks.js'],
    ['app.ts', './routes/page-without-session.js'],
    // Tests may drive the whole server.
    ['domain/page/sign-in.test.ts', '../../testing/test-app.js'],
    ['store/store.test.ts', '../bootstrap.js'],
    // The doors and the composition import every layer.
    ['routes/login-routes.ts', '../domain/page/sign-in.js'],
    ['bootstrap.ts', './directory/ldap-directory.js'],
  ])('lets %s import %s', async (path, from) => {
    expect(await refusals(path, importOf(from))).toEqual([]);
  });

  it('still keeps browser code out of every layer', async () => {
    for (const path of [
      'store/store.ts',
      'domain/page/sign-in.ts',
      'delivery/notices.ts',
      'routes/login-routes.ts',
    ]) {
      expect(await refusals(path, importOf('@dea/web'))).toEqual([
        expect.stringMatching(/never imports browser code/),
      ]);
    }
  });
});

describe('the parts of the web application (ESLint)', () => {
  const webRefusals = async (path: string, from: string): Promise<string[]> => {
    const [result] = await eslint.lintText(importOf(from), { filePath: `${ROOT}apps/web/src/${path}` });
    return (result?.messages ?? []).map((message) => `${message.ruleId ?? 'parse'}: ${message.message}`);
  };

  it.each([
    ['app/main-page.tsx', '../channels/channel-manager', /The page \(app\/, features\/\) imports neither/],
    ['features/user/leave-for-logout.ts', '../../console/api/console-call', /The page \(app\/, features\/\)/],
    ['channels/channels-app.tsx', '../console/api/console-call', /The channels page imports neither/],
    ['channels/channels-app.tsx', '../app/main-page', /The channels page imports neither/],
    ['channels/channels-app.tsx', '../features/emergency-code/channel-options', /The channels page/],
    ['console/console-app.tsx', '../app/branded-shell', /The console imports neither/],
    ['console/administration/branding-preview.tsx', '../../features/user/leave-for-logout', /The console/],
    ['login-app/login-app.tsx', '../channels/channels-app', /The login form imports neither/],
    [
      'shared/i18n/translator.ts',
      '../../features/branding/resolve-branding',
      /shared\/ is what the parts share/,
    ],
    ['api/methods.ts', '../channels/channels-api', /api\/ is the page's and the channels page's calls/],
    ['api/methods.ts', '../app/main-page', /api\/ is the page's and the channels page's calls/],
  ])('refuses %s importing %s', async (path, from, message) => {
    const found = await webRefusals(path, from);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it.each([
    ['channels/channels-app.tsx', '../app/branded-shell'],
    ['channels/channels-app.tsx', '../features/branding/hooks/use-branding'],
    ['channels/channel-manager.tsx', '../shared/components/alert'],
    ['console/administration/branding-preview.tsx', '../../features/branding/background-style'],
    ['login-app/login-app.tsx', '../features/sign-in/components/sign-in-form'],
    ['api/methods.ts', '../app/code-on-load'],
    ['app/main-page.tsx', '../features/user/leave-for-logout'],
    // Tests may use any part.
    ['shared/fetch/fetch-core.test.ts', '../../console/api/console-call'],
  ])('lets %s import %s', async (path, from) => {
    expect(await webRefusals(path, from)).toEqual([]);
  });
});
