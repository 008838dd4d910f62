import { usernameOrThrow } from '@dea/contract';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { CliFixture } from '../testing/cli.js';

/**
 * Answers a writer of import files for the calling test file: each file goes into a fresh folder,
 * and the folders are removed after that file's tests. The writer answers the file's path.
 */
export function importFiles(): (name: string, text: string) => string {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });
  return (name, text) => {
    const folder = mkdtempSync(join(tmpdir(), 'dea-import-'));
    folders.push(folder);
    const path = join(folder, name);
    writeFileSync(path, text);
    return path;
  };
}

export const PEOPLE_CSV = [
  'username,fullName,locale,timeZone,group,mobile,email,personalEmail',
  'anna,Anna Berg,de,Europe/Berlin,Staff,+49 170 5550101,anna@example.com,',
  '',
  'ben,"Ben ""B"" Carter",en,,,0044 7700 900123,ben@example.com,ben@home.example',
  'chen,Chen Li,,,Staff,,chen@example.com,',
].join('\n');

export async function channelsOf(cli: CliFixture, username: string): Promise<Record<string, string>> {
  const user = await cli.store.users.findByUsername(usernameOrThrow(username));
  return Object.fromEntries(
    (await cli.store.channels.listOfUser(user?.id ?? '')).map((channel) => [channel.key, channel.address]),
  );
}

export async function groupsOf(cli: CliFixture, username: string): Promise<string[]> {
  const user = await cli.store.users.findByUsername(usernameOrThrow(username));
  return (await cli.store.groups.listOfUser(user?.id ?? '')).map((group) => group.name);
}
