import { createHash } from 'node:crypto';
import type { Client, Filter } from 'ldapts';
import type { Store } from '../store/store.js';
import type { DirectoryConfig } from './directory-settings.js';
import { atLeast, present } from './ldap-filters.js';

/** The store's key of the directory's high-water mark (the meta table, on both stores). */
export const SYNC_MARK_KEY = 'directory:sync-mark';

/**
 * Where the last sync left off. OpenLDAP: the latest entryCSN of the users it read (a change's
 * time to the microsecond; modifyTimestamp, to the second, on a server without entryCSN);
 * Active Directory: the domain controller's highestCommittedUSN when it began, which only means
 * something on that controller (its invocationId): another one, or a restored one, gets a full
 * pass. `fullAt`: when the last full pass ended (the only one that sees deletions).
 */
export interface SyncMark {
  kind: 'csn' | 'timestamp' | 'usn';
  mark: string;
  invocationId?: string | undefined;
  /** Which groups there were: a removed group changes it although no entry changed. */
  groupsDigest: string;
  /** What the settings that decide who is read were: other settings, another directory. */
  settingsDigest: string;
  fullAt: number;
}

/** What this directory's server says about where it is now (Active Directory only). */
export interface ServerPoint {
  invocationId: string | undefined;
  highestUsn: string | undefined;
}

/** Whether the directory is Active Directory (as its id attribute says). */
export function isActiveDirectory(config: DirectoryConfig): boolean {
  return config.attributes.id === 'objectGUID';
}

/**
 * The attributes a change of an entry shows in: uSNChanged on Active Directory; elsewhere entryCSN
 * (OpenLDAP) and modifyTimestamp (any server).
 */
export function changeAttributesOf(config: DirectoryConfig): string[] {
  return isActiveDirectory(config) ? ['uSNChanged'] : ['entryCSN', 'modifyTimestamp'];
}

/** The latest change seen so far: an entryCSN, a modifyTimestamp. */
export interface ChangePoint {
  csn: string | undefined;
  stamp: string | undefined;
}

/** The filter term of the entries changed after a mark. */
export function changedSinceTerm(mark: SyncMark): Filter {
  if (mark.kind === 'usn') return atLeast('uSNChanged', (BigInt(mark.mark) + 1n).toString());
  if (mark.kind === 'csn') return atLeast('entryCSN', mark.mark);
  return atLeast('modifyTimestamp', mark.mark);
}

/** A generalized time's digits (20261126140501Z, 20261126140501.0Z), comparable as text. */
function timeKey(value: string): string {
  return value
    .replace(/[^0-9]/g, '')
    .slice(0, 14)
    .padEnd(14, '0');
}

/** The later of two modifyTimestamp values (either may be missing). */
export function laterStamp(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return timeKey(b) > timeKey(a) ? b : a;
}

/** The later of two points, each part on its own (an entryCSN's text sorts as its time). */
export function laterPoint(a: ChangePoint, b: ChangePoint): ChangePoint {
  const csn = a.csn === undefined || (b.csn !== undefined && b.csn > a.csn) ? b.csn : a.csn;
  return { csn, stamp: laterStamp(a.stamp, b.stamp) };
}

/** The settings that decide which entries are read and what is taken of them. */
export function settingsDigestOf(config: DirectoryConfig): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        config.baseDn,
        config.userFilter.toString(),
        config.attributes,
        [...config.groups].sort(),
        config.groupFilter.toString(),
        config.nestedGroups,
      ]),
    )
    .digest('base64url');
}

/**
 * Active Directory's rootDSE: highestCommittedUSN, and the invocationId of the controller answering
 * (on its NTDS Settings object, dsServiceName). Undefined values elsewhere.
 */
export async function readServerPoint(client: Client, activeDirectory: boolean): Promise<ServerPoint> {
  if (!activeDirectory) return { invocationId: undefined, highestUsn: undefined };
  const { searchEntries } = await client.search('', {
    scope: 'base',
    filter: present('objectClass'),
    attributes: ['dsServiceName', 'highestCommittedUSN'],
  });
  const root = searchEntries[0];
  const text = (value: unknown) => {
    const first: unknown = Array.isArray(value) ? (value as unknown[])[0] : value;
    if (typeof first === 'string') return first;
    return Buffer.isBuffer(first) ? first.toString('utf8') : undefined;
  };
  const service = text(root?.dsServiceName);
  let invocationId: string | undefined;
  if (service !== undefined) {
    const { searchEntries: settings } = await client.search(service, {
      scope: 'base',
      filter: present('objectClass'),
      attributes: ['invocationId'],
      explicitBufferAttributes: ['invocationId'],
    });
    const value = settings[0]?.invocationId;
    const bytes = Array.isArray(value) ? value[0] : value;
    invocationId = Buffer.isBuffer(bytes) ? bytes.toString('hex') : undefined;
  }
  return { invocationId, highestUsn: text(root?.highestCommittedUSN) };
}

/** Why a sync reads everyone, or undefined: it reads what changed since the mark. */
export function fullPassReason(
  mark: SyncMark | undefined,
  options: {
    now: number;
    fullIntervalMs: number;
    settingsDigest: string;
    server: ServerPoint;
    forced: boolean;
  },
): string | undefined {
  if (options.forced) return 'asked for';
  if (mark === undefined) return 'first sync';
  if (mark.settingsDigest !== options.settingsDigest) return 'the directory settings changed';
  if (mark.kind === 'usn' && mark.invocationId !== options.server.invocationId)
    return 'another domain controller (or a restored one) answered: its update numbers are its own';
  if (options.now - mark.fullAt >= options.fullIntervalMs) return 'DEA_LDAP_FULL_SYNC_HOURS passed';
  return undefined;
}

/** The mark kept in the store (both stores: the meta table). */
export async function loadMark(store: Store): Promise<SyncMark | undefined> {
  const text = await store.meta.get(SYNC_MARK_KEY);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as SyncMark;
  } catch {
    return undefined;
  }
}

export async function saveMark(store: Store, mark: SyncMark): Promise<void> {
  await store.meta.set(SYNC_MARK_KEY, JSON.stringify(mark));
}
