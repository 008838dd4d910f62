import { closeSync, fstatSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { isOpenFile } from './files/private-files.js';

/**
 * Settings files (docs/decisions/0037): NAME=value lines as systemd's EnvironmentFile takes them,
 * read by the product itself, in the order DEA_SETTINGS_FILES lists them, each later file winning.
 * The package lists its own defaults (/usr/lib/dea/dea.env, replaced by every release), the
 * operator's file (/etc/dea/dea.env, which no release writes) and the operator's drop-ins
 * (/etc/dea/dea.env.d/*.env), so that an upgrade never asks about a file and never loses a value.
 */

/** A setting renamed by a release: the old name's value is used under the new one, with a warning. */
export interface Renamed {
  to: string;
  release: string;
}

/**
 * Settings a release renamed (old name: new name and the release). An upgrade keeps the operator's
 * value: it is read under the new name, and the start says which file to change.
 */
export const RENAMED_SETTINGS: Readonly<Record<string, Renamed>> = {};

/** Settings a release retired (name: the release and what to do instead). Found: said, no effect. */
export const RETIRED_SETTINGS: Readonly<Record<string, { release: string; instead: string }>> = {};

/** Where a value was read: the file and its line. */
export interface SettingSource {
  path: string;
  line: number;
  /** The file's mode when its group or others may read or change it (it must hold no secret then). */
  openMode?: number;
}

/** What the settings files said: the values (the last file's), where each came from, and notes. */
export interface SettingsFiles {
  /** The files read, in order. */
  read: string[];
  values: Record<string, string>;
  sources: Record<string, SettingSource>;
  /** Renamed, retired and unknown names found: each said at start, none stops it. */
  notices: string[];
  /** What makes the settings unusable: a file that cannot be read, a line that is no setting. */
  problems: string[];
}

const NAME_LINE = /^([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*(.*)$/;

/**
 * A value as systemd reads it: in single quotes as written, in double quotes with \" \\ \$ \`
 * and \n undone, otherwise the text with the spaces around it taken off. Undefined: an
 * unterminated quote.
 */
function valueOf(raw: string): string | undefined {
  const text = raw.trim();
  const quote = text[0];
  if (quote !== "'" && quote !== '"') return text;
  if (text.length < 2 || text.at(-1) !== quote) return undefined;
  const inner = text.slice(1, -1);
  if (quote === "'") return inner;
  return inner.replace(/\\(["\\$`n])/g, (_all, escaped: string) => (escaped === 'n' ? '\n' : escaped));
}

/** The NAME=value lines of one file (comments with # or ;); a line that is neither is a problem. */
export function parseSettingsText(
  text: string,
  path: string,
): { entries: { name: string; value: string; line: number }[]; problems: string[] } {
  const entries: { name: string; value: string; line: number }[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((rawLine, index) => {
    const line = rawLine.replace(/\r$/, '').trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const match = NAME_LINE.exec(line.replace(/^export[ \t]+/, ''));
    const value = match === null ? undefined : valueOf(match[2] ?? '');
    if (match?.[1] === undefined || value === undefined) {
      problems.push(
        `${path} line ${index + 1}: not a NAME=value line (a value with spaces goes in single quotes: NAME='a value')`,
      );
      return;
    }
    entries.push({ name: match[1], value, line: index + 1 });
  });
  return { entries, problems };
}

/** The mode and owner of a file for a message: `mode 0600, owner 0:0`. */
function described(path: string): string {
  try {
    const { mode, uid, gid } = statSync(path);
    return `mode ${(mode & 0o7777).toString(8).padStart(4, '0')}, owner ${uid}:${gid}`;
  } catch {
    return 'its folder cannot be read';
  }
}

/** Who this process runs as, for a message: `dea (uid 998)`. */
function runningAs(): string {
  try {
    const { username, uid } = userInfo();
    return `${username} (uid ${uid})`;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

/**
 * The files a DEA_SETTINGS_FILES list names: paths separated by ':', each a file or a folder
 * (its *.env files, in name order); one written with a leading '-' may be missing, as systemd's
 * EnvironmentFile=- may.
 */
function filesOf(list: string, problems: string[]): string[] {
  const files: string[] = [];
  for (const entry of list.split(':').map((each) => each.trim())) {
    if (entry === '' || entry === '-') continue;
    const optional = entry.startsWith('-');
    const path = optional ? entry.slice(1) : entry;
    let isFolder: boolean;
    try {
      isFolder = statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      if (code === 'ENOENT' && optional) continue;
      problems.push(
        code === 'ENOENT'
          ? `DEA_SETTINGS_FILES: ${path} does not exist (write -${path} for a file that may be missing)`
          : `DEA_SETTINGS_FILES: cannot reach ${path} (${code}) as ${runningAs()}`,
      );
      continue;
    }
    if (!isFolder) {
      files.push(path);
      continue;
    }
    try {
      for (const name of readdirSync(path).sort()) if (name.endsWith('.env')) files.push(join(path, name));
    } catch (error) {
      problems.push(
        `DEA_SETTINGS_FILES: cannot list the folder ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}, ${described(path)}) as ${runningAs()}: it must be readable by the service's group (chmod 750)`,
      );
    }
  }
  return files;
}

/**
 * Reads the settings files of a DEA_SETTINGS_FILES list. `known` tells a setting of this release;
 * a renamed setting is read under its new name (unless a later file sets the new name), a retired
 * or unknown one is only said.
 */
export function readSettingsFiles(
  list: string,
  known: (name: string) => boolean,
  renamed: Readonly<Record<string, Renamed>> = RENAMED_SETTINGS,
  retired: Readonly<Record<string, { release: string; instead: string }>> = RETIRED_SETTINGS,
): SettingsFiles {
  const problems: string[] = [];
  const notices: string[] = [];
  const values: Record<string, string> = {};
  const sources: Record<string, SettingSource> = {};
  const fromOldName = new Set<string>();
  const read: string[] = [];
  for (const path of filesOf(list, problems)) {
    let text: string;
    let openMode: number | undefined;
    try {
      const descriptor = openSync(path, 'r');
      try {
        const stat = fstatSync(descriptor);
        if (isOpenFile(stat)) openMode = stat.mode & 0o7777;
        text = readFileSync(descriptor, 'utf8');
      } finally {
        closeSync(descriptor);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      problems.push(
        `cannot read the settings file ${path} (${code}, ${described(path)}) as ${runningAs()}${code === 'EACCES' ? `: give it the service's group and let the group read it (chgrp dea ${path}; chmod 640 ${path})` : ''}`,
      );
      continue;
    }
    read.push(path);
    const parsed = parseSettingsText(text, path);
    problems.push(...parsed.problems);
    for (const { name, value, line } of parsed.entries) {
      const where = `${path} line ${line}`;
      const source = { path, line, ...(openMode !== undefined && { openMode }) };
      const rename = renamed[name];
      if (rename !== undefined) {
        notices.push(
          `${name} (${where}) is called ${rename.to} since release ${rename.release}: its value is used as ${rename.to}; rename it in that file`,
        );
        // The new name, once set in any file, wins over the old one wherever it is.
        if (sources[rename.to] !== undefined && !fromOldName.has(rename.to)) continue;
        values[rename.to] = value;
        sources[rename.to] = source;
        fromOldName.add(rename.to);
        continue;
      }
      if (!known(name)) {
        const gone = retired[name];
        notices.push(
          gone === undefined
            ? `${name} (${where}) is not a setting of this release (misspelt, or from another release): it has no effect`
            : `${name} (${where}) was retired in release ${gone.release} and has no effect: ${gone.instead}`,
        );
        continue;
      }
      values[name] = value;
      sources[name] = source;
      fromOldName.delete(name);
    }
  }
  return { read, values, sources, notices, problems };
}
