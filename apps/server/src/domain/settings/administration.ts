import {
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  type AdminGroups,
  type AdminPolicyChange,
  type AdminServiceKey,
  type AdminServiceKeyCreate,
  type AdminServiceKeyCreated,
  type AdminLanguageAdd,
  type AdminLanguages,
  type AdminSettings,
  type AdminTexts,
  type AdminTextsSetResult,
  type BrandingEntry,
  type BrandingName,
  POLICY_CATEGORY_HELP_DESK,
  POLICY_CATEGORY_SELF_SERVICE,
  TEXT_KEYS,
} from '@dea/contract';
import type { ServiceKey, Store } from '../../store/store.js';
import { conflict, invalidRequest, notFound } from '../errors.js';
import { brandingEntries, defaultBrandingEntry, resetBranding, setBranding } from './branding-rules.js';
import type { Catalogs } from '../texts/catalogs.js';
import type { CodeDefaults } from '../codes/code-settings.js';
import type { ConsoleCaller } from '../console/console-auth.js';
import { effectiveSettings } from './effective-settings.js';
import { registrationOptionsOf } from '../channels/channel-proof.js';
import { type GroupPolicies, issuersOf } from '../policies/group-policies.js';
import type { Groups } from '../identity/groups.js';
import { addLanguage, checkTexts, importTexts, textsBesideEnglish } from '../texts/message-texts.js';
import { resolvePolicy } from '../policies/policy.js';
import { RuleError } from '../rule-error.js';
import { issueServiceKey, revokeServiceKey } from '../codes/service-keys.js';

const iso = (at: number): string => new Date(at).toISOString();

/** A refusal of the product's rules, as the console's API answers it: 404 when missing, else 400. */
function asDomainError(error: unknown): never {
  if (!(error instanceof RuleError)) throw error;
  if (error.kind === 'missing') throw notFound();
  // Another source owns the group: 409, the message naming the owner.
  if (error.kind === 'owned') throw conflict(error.message);
  throw invalidRequest(error.message);
}

const shownKey = (key: ServiceKey): AdminServiceKey => ({
  id: key.id,
  name: key.name,
  scopes: key.scopes,
  createdAt: iso(key.createdAt),
  revokedAt: key.revokedAt === null ? null : iso(key.revokedAt),
});

export interface AdministrationDependencies {
  store: Store;
  /** The message catalogs this instance caches; forgotten after a change of texts. */
  catalogs: Catalogs;
  codeDefaults: CodeDefaults;
  serviceKeyHash: Buffer;
  /** The settings table and the values that took effect. */
  settings: {
    table: Readonly<Record<string, { schema: object }>>;
    values: Readonly<Record<string, unknown>>;
  };
  /** The groups module (identity/groups.ts) and the policies' rules (policies/group-policies.ts). */
  groups: Groups;
  groupPolicies: GroupPolicies;
  now: () => number;
}

/** A group's "Channel Registration" options for codes on screen, checked, defaults for the rest. */
function screenCodeTrustOf(stored: Record<string, unknown> | undefined) {
  const { screenCodeTrustedNetworks, screenCodeRememberedDeviceDays } = registrationOptionsOf(stored);
  return { screenCodeTrustedNetworks, screenCodeRememberedDeviceDays };
}

/**
 * What an administrator does in the console: groups and their policies, branding, message texts,
 * service keys, and a read-only look at the settings. Only the admin role, only after the passkey;
 * the same rules as the CLI, audited with the administrator as actor.
 */
export class Administration {
  private readonly groupPolicies: GroupPolicies;
  private readonly groupChanges: Groups;

  constructor(private readonly deps: AdministrationDependencies) {
    this.groupPolicies = deps.groupPolicies;
    this.groupChanges = deps.groups;
  }

  /** Who acts, for the audit: the administrator the route let through (CONSOLE_ACCESS.administer). */
  actorOf(caller: ConsoleCaller): string {
    return `console:${caller.account.username}`;
  }

  async groups(): Promise<AdminGroups> {
    const { store, codeDefaults } = this.deps;
    const groups = await Promise.all(
      (await store.groups.list()).map(async (group) => {
        const policies = await store.groups.listPolicies(group.id);
        const of = (category: string) => policies.find((policy) => policy.category === category)?.options;
        const stored = of(POLICY_CATEGORY_SELF_SERVICE);
        return {
          id: group.id,
          name: group.name,
          priority: group.priority,
          members: (await store.groups.listMembers(group.id)).length,
          stored: stored ?? null,
          effective: resolvePolicy(stored, codeDefaults),
          issuers: [...issuersOf(of(POLICY_CATEGORY_HELP_DESK))],
          screenCodeTrust: screenCodeTrustOf(of(POLICY_CATEGORY_CHANNEL_REGISTRATION)),
          owner: group.source,
        };
      }),
    );
    return { groups, defaults: resolvePolicy(undefined, codeDefaults) };
  }

  async createGroup(caller: ConsoleCaller, name: string, priority: number): Promise<{ id: string }> {
    const actor = this.actorOf(caller);
    const group = await this.groupChanges
      .create({ name, priority }, { door: 'local', actor })
      .catch(asDomainError);
    return { id: group.id };
  }

  async setPolicy(
    caller: ConsoleCaller,
    groupId: string,
    change: AdminPolicyChange,
  ): Promise<{ options: Record<string, unknown> }> {
    const actor = this.actorOf(caller);
    const group = (await this.deps.store.groups.list()).find((each) => each.id === groupId);
    if (group === undefined) throw notFound();
    const options = await this.groupPolicies
      .setPolicy(group, change.category, change.options, actor)
      .catch(asDomainError);
    return { options };
  }

  /** Hands the group to SCIM or takes it back, by the rule the CLI's dea group owner uses. */
  async setGroupOwner(caller: ConsoleCaller, groupId: string, owner: string): Promise<{ owner: string }> {
    const actor = this.actorOf(caller);
    const group = (await this.deps.store.groups.list()).find((each) => each.id === groupId);
    if (group === undefined) throw notFound();
    const changed = await this.groupChanges
      .setOwner(group, owner, { door: 'local', actor })
      .catch(asDomainError);
    return { owner: changed.source };
  }

  async branding(): Promise<{ entries: BrandingEntry[] }> {
    return { entries: await brandingEntries(this.deps.store) };
  }

  async setBranding(caller: ConsoleCaller, name: BrandingName, value: string): Promise<BrandingEntry> {
    const actor = this.actorOf(caller);
    return setBranding(this.deps.store, { name, value }, actor, this.deps.now()).catch(asDomainError);
  }

  async resetBranding(caller: ConsoleCaller, name: BrandingName): Promise<BrandingEntry> {
    const actor = this.actorOf(caller);
    await resetBranding(this.deps.store, name, actor, this.deps.now());
    return defaultBrandingEntry(name);
  }

  async languages(): Promise<AdminLanguages> {
    const { store } = this.deps;
    const languages = await Promise.all(
      (await store.catalogs.listLanguages()).map(async ({ code, name }) => {
        const own = await store.catalogs.messages(code);
        const texts = TEXT_KEYS.filter((key) => Object.hasOwn(own, key)).length;
        return { code, name, texts, missing: TEXT_KEYS.length - texts };
      }),
    );
    return { languages };
  }

  async addLanguage(caller: ConsoleCaller, request: AdminLanguageAdd): Promise<{ texts: number }> {
    const actor = this.actorOf(caller);
    const { store, now, catalogs } = this.deps;
    const texts = await addLanguage(store, { ...request, from: request.from ?? 'en' }, actor, now()).catch(
      asDomainError,
    );
    catalogs.forget();
    return { texts };
  }

  async texts(caller: ConsoleCaller, language: string): Promise<AdminTexts> {
    const { store } = this.deps;
    if (!(await store.catalogs.listLanguages()).some((row) => row.code === language)) throw notFound();
    return { language, texts: await textsBesideEnglish(store, language) };
  }

  async setTexts(
    caller: ConsoleCaller,
    language: string,
    texts: Record<string, string>,
  ): Promise<AdminTextsSetResult> {
    const actor = this.actorOf(caller);
    const { store, now, catalogs } = this.deps;
    try {
      const checked = checkTexts(texts);
      const { added, replaced } = await importTexts(store, language, checked, {
        overwrite: true,
        actor,
        now: now(),
      });
      catalogs.forget();
      return { added, replaced };
    } catch (error) {
      return asDomainError(error);
    }
  }

  async serviceKeys(): Promise<{ keys: AdminServiceKey[] }> {
    return { keys: (await this.deps.store.serviceKeys.list()).map(shownKey) };
  }

  async createServiceKey(
    caller: ConsoleCaller,
    request: AdminServiceKeyCreate,
  ): Promise<AdminServiceKeyCreated> {
    const actor = this.actorOf(caller);
    const { store, serviceKeyHash, now } = this.deps;
    const made = await issueServiceKey(store, serviceKeyHash, request, actor, now()).catch(asDomainError);
    return { key: made.key, serviceKey: shownKey(made.serviceKey) };
  }

  async revokeServiceKey(caller: ConsoleCaller, keyId: string): Promise<AdminServiceKey> {
    const actor = this.actorOf(caller);
    const { store, now } = this.deps;
    const key = await store.serviceKeys.findById(keyId);
    if (key === undefined) throw notFound();
    const at = now();
    await revokeServiceKey(store, key, actor, at).catch(asDomainError);
    return shownKey({ ...key, revokedAt: at });
  }

  settings(): AdminSettings {
    return { settings: effectiveSettings(this.deps.settings.table, this.deps.settings.values) };
  }
}
