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
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/server/**', '@dea/server', 'node:*'],
              message: 'The browser never imports server code; share through @dea/contract.',
            },
          ],
        },
      ],
    },
  },
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
