import { ConfigError } from '../config.js';

/** The problems a loading of the settings names; fails the test when it names none. */
export function configProblems(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
