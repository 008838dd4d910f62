import { readFileSync } from 'node:fs';

const codeOfError = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'error';
};

/**
 * A setting's PEM file of certificate authorities (a private CA), read at start so that a wrong
 * path is named then, not at the first connection. Undefined for an empty path or a problem.
 */
export function readCaFile(setting: string, path: string, problems: string[]): string | undefined {
  if (path === '') return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    problems.push(`${setting}=${JSON.stringify(path)}: cannot read it (${codeOfError(error)})`);
    return undefined;
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    problems.push(
      `${setting}=${JSON.stringify(path)}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
    return undefined;
  }
  return text;
}
