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
    layer(
      ADAPTERS.map((adapter) => `${adapter}/**/*.ts`),
      folders(...DOORS),
      'An adapter may import domain/ and store/, never a door (routes/, http/, cli/): what it needs from the composition is in services.ts.',
    ),
  ];
}

/**
 * The contract's tests: in no tsconfig.json (the contract's own builds its dist/ without them), so
 * `npm run lint`'s project service lints them in its default project; scripts/check-code.mjs type
 * checks and lints them on packages/contract/tsconfig.test.json.
 */
export const CONTRACT_TEST_FILES = ['packages/contract/src/*.test.ts'];

/**
 * The TypeScript files of no project (no tsconfig.json includes them), linted in the project
 * service's default project; scripts/check-code.mjs lints every other TypeScript file on the
 * program of its project.
 */
export const DEFAULT_PROJECT_FILES = [
  '*.ts',
  ...CONTRACT_TEST_FILES,
  'docs/.vitepress/*.mts',
  'docs/.vitepress/theme/*.mts',
  'scripts/*.d.mts',
];

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
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', 'scripts/*.mjs', ...DEFAULT_PROJECT_FILES],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
      // Fastify plugins and hooks are async by contract, awaiting or not.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
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
  {
    // Tests read untyped JSON answers and assert on them; the assertions are the type check.
    files: ['**/*.test.{ts,tsx}', '**/*.suite.ts', 'e2e/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  ...boundaries,
);
