import Type from 'typebox';
import { OpenPrivateFileError, readPrivateFileSync } from './files/private-files.js';

/**
 * Settings whose value may come from a file instead of the environment (`NAME_FILE`, as the
 * official container images of PostgreSQL and others do, and as systemd's credentials are
 * handed over): a secret then appears neither in the environment of the process nor in a unit
 * or env file that more people can read.
 */
export const SECRET_FILE_SETTINGS = {
  DEA_SECRET_FILE: {
    schema: Type.String({ default: '' }),
    doc: 'File holding DEA_SECRET (one line; a trailing newline is dropped), instead of the setting itself: read at start, refused when its group or others may read it (chmod 600) and when DEA_SECRET is set too.',
  },
  DATABASE_URL_FILE: {
    schema: Type.String({ default: '' }),
    doc: 'File holding DATABASE_URL (one line; a trailing newline is dropped), instead of the setting itself, so its password is in no environment: read at start, refused when its group or others may read it (chmod 600) and when DATABASE_URL is set too.',
  },
} as const;

/** Each `NAME_FILE` setting and the setting it fills. */
const FILLS: Readonly<Record<keyof typeof SECRET_FILE_SETTINGS, string>> = {
  DEA_SECRET_FILE: 'DEA_SECRET',
  DATABASE_URL_FILE: 'DATABASE_URL',
};

/**
 * The settings with each `NAME_FILE` that is set read into its `NAME`: one rule for the server and
 * every `dea` command. A file that cannot be read, that others may read, or that is named beside
 * its setting is a problem naming both settings.
 */
export function withSecretFiles(
  env: Record<string, string | undefined>,
  problems: string[],
): Record<string, string | undefined> {
  const filled = { ...env };
  for (const [fileSetting, setting] of Object.entries(FILLS)) {
    const path = env[fileSetting]?.trim() ?? '';
    if (path === '') continue;
    if ((env[setting]?.trim() ?? '') !== '') {
      problems.push(`${fileSetting}: ${setting} is set too; keep one of the two`);
      continue;
    }
    try {
      const value = readPrivateFileSync(path)
        .toString('utf8')
        .replace(/\r?\n$/, '');
      if (value.trim() === '') problems.push(`${fileSetting}: ${path} is empty; it must hold ${setting}`);
      else filled[setting] = value;
    } catch (error) {
      problems.push(
        error instanceof OpenPrivateFileError
          ? `${fileSetting}: ${error.message}`
          : `${fileSetting}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}); it must hold ${setting}`,
      );
    }
  }
  return filled;
}
