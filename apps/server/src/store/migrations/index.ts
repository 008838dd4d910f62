import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './0001-initial.js';
import * as signinThrottle from './0002-signin-throttle.js';

/** Versioned migrations, applied in name order at start. Never edit one that has shipped. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-signin-throttle': signinThrottle,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(MIGRATIONS),
};
