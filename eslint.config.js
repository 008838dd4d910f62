import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const SERVER_NOT_WEB = {
  group: ['**/apps/web/**', '@dea/web'],
  message: 'The server never imports browser code; share through @dea/contract.',
};

/** An import of one of the server's folders (from anywhere below src/). */
const folders = (...names) => `^(\\.\\./)+(${names.join('|')})(/|\\.js$)`;

const DOORS = ['routes', 'http', 'cli', 'app', 'server', 'bootstrap'];
const ADAPTERS = ['delivery', 'directory', 'audit-export', 'webhooks', 'radius', 'scim', 'user-import'];

/** The server's layer rules, each for its folders' sources (tests may drive the whole server). */
function serverLayers() {
  const layer = (globs, regex, message) => ({
    files: globs.map((glob) => `apps/server/src/${glob}`),
    ignores: ['**/*.test.ts', '**/*.suite.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [SERVER_NOT_WEB, { regex, message }] }],
    },
  });
  return [
    layer(
      ['store/**/*.ts'],
      folders('domain', 'services', 'config', ...DOORS, ...ADAPTERS),
      'store/ is the bottom layer: it imports nothing from domain/, the doors (routes/, http/, cli/) or the adapters; give it what it needs in store/ or @dea/contract.',
    ),
    layer(
      ['domain/**/*.ts'],
      folders('services', 'config', ...DOORS, ...ADAPTERS),
      'domain/ imports no door (routes/, http/, cli/), no adapter and not the composition (services.ts, config.ts): declare a port in domain/ports/, implement it in the adapter, wire it in bootstrap.ts.',
    ),
    // Each adapter on its own: one that needs another's work receives it from the composition
    // (bootstrap.ts), or both import a port of domain/ports/.
    ...ADAPTERS.map((adapter) =>
      layer(
        [`${adapter}/**/*.ts`],
        folders(...DOORS, ...ADAPTERS.filter((other) => other !== adapter)),
        'An adapter may import domain/ and store/, never a door (routes/, http/, cli/) nor another adapter: what it needs from the composition is in services.ts, what two adapters share is a port of domain/ports/ wired in bootstrap.ts.',
      ),
    ),
    layer(
      ['http/**/*.ts'],
      folders('routes', 'cli', 'app', 'server', 'bootstrap', ...ADAPTERS),
      'http/ is what every route shares (the envelope, the guards, the hooks): it imports no route, no command, no adapter and not the application (app.ts, server.ts, bootstrap.ts); app.ts hands it what it needs from them.',
    ),
    layer(
      ['net/**/*.ts'],
      folders('store', 'domain', 'services', 'config', ...DOORS, ...ADAPTERS),
      'net/ is network plumbing every layer may use (address ranges, backoff, the signed POST): it imports no layer of the server.',
    ),
  ];
}

const WEB_NOT_SERVER = {
  group: ['**/apps/server/**', '@dea/server', 'node:*'],
  message: 'The browser never imports server code; share through @dea/contract.',
};

/** An import of one of the web application's folders (from anywhere below apps/web/src/). */
const webFolders = (...names) => `^(\\.\\./)+(${names.join('|')})(/|$)`;

/**
 * The web application's parts, each for its folder's sources (tests may use any part): the page
 * (app/ and features/), the channels page (channels/), the console (console/) and the login form
 * (login-app/) import none of the others, besides the page's frame that the channels page and the
 * login form show too (its shell, header and failure screen, and the branding, language and
 * signed-in user features) and the branding the console previews; shared/ and api/ import no part
 * (api/methods.ts asks the page's code-on-load module for the code the page asked for before it
 * loaded).
 */
function webParts() {
  const part = (globs, regex, message) => ({
    files: globs.map((glob) => `apps/web/src/${glob}`),
    ignores: ['**/*.test.{ts,tsx}', '**/testing/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [WEB_NOT_SERVER, { regex, message }] }],
    },
  });
  const frame = ['branded-shell', 'page-header', 'startup-failure'];
  const pageFeaturesOthersShow = ['branding', 'language', 'user'];
  return [
    part(
      ['app/**/*.{ts,tsx}', 'features/**/*.{ts,tsx}'],
      webFolders('channels', 'console', 'login-app'),
      'The page (app/, features/) imports neither the channels page, the console nor the login form: what two of them need goes to shared/.',
    ),
    part(
      ['channels/**/*.{ts,tsx}'],
      `${webFolders('console', 'login-app')}|^(\\.\\./)+app/(?!(${frame.join('|')})$)|^(\\.\\./)+features/(?!(${pageFeaturesOthersShow.join('|')})/)`,
      'The channels page imports neither the console nor the login form, and of the page only its frame (app/branded-shell, page-header, startup-failure; features/branding, language, user): what it shares with the page goes to shared/.',
    ),
    part(
      ['console/**/*.{ts,tsx}'],
      `${webFolders('app', 'channels', 'login-app')}|^(\\.\\./)+features/(?!branding/)`,
      "The console imports neither the page, the channels page nor the login form, besides the page's branding it previews (features/branding): what it shares goes to shared/.",
    ),
    part(
      ['login-app/**/*.{ts,tsx}'],
      `${webFolders('channels', 'console')}|^(\\.\\./)+app/(?!(${frame.join('|')})$)|^(\\.\\./)+features/(?!(branding|language|password-link|sign-in)/)`,
      'The login form imports neither the channels page nor the console, and of the page only its frame and the sign-in and password-link forms.',
    ),
    part(
      ['shared/**/*.{ts,tsx}'],
      webFolders('app', 'features', 'channels', 'console', 'login-app'),
      'shared/ is what the parts share: it imports none of them.',
    ),
    part(
      ['api/**/*.{ts,tsx}'],
      `${webFolders('features', 'channels', 'console', 'login-app')}|^(\\.\\./)+app/(?!code-on-load$)`,
      "api/ is the page's and the channels page's calls: it imports no part, besides the page's code-on-load module.",
    ),
  ];
}

/** Dependencies flow one way: contract <- server, contract <- web; never server <-> web. */
const boundaries = [
  {
    files: ['packages/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/**', '@dea/server', '@dea/web', 'node:*'],
              message: 'The contract is shared by the browser and the server: it imports neither, nor Node.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/server/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [SERVER_NOT_WEB],
        },
      ],
    },
  },
  // Layers of the server (docs/architecture.md): the store depends on no layer above it, the domain
  // on no door and no adapter (it owns the ports adapters implement), adapters on no door.
  // A later entry replaces an earlier one's no-restricted-imports, so each repeats SERVER_NOT_WEB.
  ...serverLayers(),
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [WEB_NOT_SERVER] }],
    },
  },
  // The parts of the web application (docs/architecture.md): the page, the channels page, the
  // console and the login form each on their own, meeting only in what they share.
  ...webParts(),
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'data/**',
      'coverage/**',
      'test-results/**',
      'playwright-report/**',
      'docs/.vitepress/cache/**',
    ],
  },
  js.configs.recommended,
  // typescript-eslint's recommended rules that need no types. Its type-aware ones
  // (recommendedTypeChecked: no-floating-promises, no-misused-promises, no-unsafe-*, ...) run in
  // oxlint's typescript-go beside the type check (.oxlintrc.json, docs/decisions/0025): ESLint
  // builds no TypeScript program.
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}', 'apps/web/entries/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  ...boundaries,
);
