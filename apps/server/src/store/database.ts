import type { Username } from '@dea/contract';
import type { ColumnType, Generated } from 'kysely';

/**
 * Tables of the store. Times are epoch milliseconds (INTEGER in SQLite, BIGINT in PostgreSQL)
 * and flags are 0/1 integers, so both databases hold the same values.
 */
export interface Database {
  users: UsersTable;
  groups: GroupsTable;
  user_groups: UserGroupsTable;
  policies: PoliciesTable;
  channels: ChannelsTable;
  codes: CodesTable;
  sessions: SessionsTable;
  branding: BrandingTable;
  languages: LanguagesTable;
  messages: MessagesTable;
  audit_log: AuditLogTable;
  audit_chain: AuditChainTable;
  audit_export_positions: AuditExportPositionsTable;
  outbox: OutboxTable;
  service_keys: ServiceKeysTable;
  meta: MetaTable;
  leases: LeasesTable;
  signin_failures: SigninFailuresTable;
  rate_counters: RateCountersTable;
  verify_failures: VerifyFailuresTable;
  verify_answers: VerifyAnswersTable;
  console_accounts: ConsoleAccountsTable;
  console_passkeys: ConsolePasskeysTable;
  console_sessions: ConsoleSessionsTable;
  console_enrolment_links: ConsoleEnrolmentLinksTable;
  console_oidc_identities: ConsoleOidcIdentitiesTable;
  console_oidc_flows: ConsoleOidcFlowsTable;
  console_oidc_sessions: ConsoleOidcSessionsTable;
  console_directory_accounts: ConsoleDirectoryAccountsTable;
  console_directory_sessions: ConsoleDirectorySessionsTable;
  password_links: PasswordLinksTable;
  channel_proofs: ChannelProofsTable;
  channel_undo_links: ChannelUndoLinksTable;
  registration_sessions: RegistrationSessionsTable;
  registration_links: RegistrationLinksTable;
  registration_oidc_flows: RegistrationOidcFlowsTable;
  user_passkeys: UserPasskeysTable;
  user_passkey_challenges: UserPasskeyChallengesTable;
  remembered_devices: RememberedDevicesTable;
  registration_oidc_links: RegistrationOidcLinksTable;
  blocked_addresses: BlockedAddressesTable;
}

export interface UsersTable {
  id: string;
  /** Canonical (RFC 8265, migration 0014). */
  username: Username;
  password_hash: string;
  full_name: string;
  /** The user's language; null (migration 0038): none, the page's language rule applies. */
  locale: ColumnType<string | null, string | null | undefined, string | null>;
  disabled: number;
  created_at: number;
  /** The sign-in before the current one: what the page shows as last login. */
  last_login_at: number | null;
  current_login_at: number | null;
  /** IANA time zone for times in messages; null: DEA_TIME_ZONE. */
  time_zone: ColumnType<string | null, string | null | undefined, string | null>;
  source: Generated<string>;
  external_id: string | null;
  /** SCIM's name.givenName and name.familyName (migration 0020); null: none given. */
  given_name: ColumnType<string | null, string | null | undefined, string | null>;
  family_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** The channel key of the primary e-mail address and phone number SCIM marked (migration 0020). */
  primary_email: ColumnType<string | null, string | null | undefined, string | null>;
  primary_phone: ColumnType<string | null, string | null | undefined, string | null>;
  /** SCIM's displayName and name.formatted as given (migration 0038); null: unassigned. */
  display_name: ColumnType<string | null, string | null | undefined, string | null>;
  formatted_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the user last changed (migration 0021); null: not since it was created. */
  updated_at: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface GroupsTable {
  id: string;
  name: string;
  /** When a user is in several groups, the policy of the highest priority wins. */
  priority: number;
  /** Who owns the group (migration 0015): 'local', 'scim', 'ldap' or 'import'. */
  source: Generated<string>;
  /** The SCIM client's own id of the group (migration 0020). */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The source that created the group; null: made before migration 0020, or by an operator. */
  created_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the group was created and last changed (migration 0021); null: before it. */
  created_at: ColumnType<number | null, number | null | undefined, number | null>;
  updated_at: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface UserGroupsTable {
  user_id: string;
  group_id: string;
}

export interface PoliciesTable {
  group_id: string;
  category: string;
  /** JSON object of policy options. */
  options: string;
}

export interface ChannelsTable {
  /** Random, opaque: the recipient reference the page sees. */
  id: string;
  user_id: string;
  key: string;
  address: string;
  created_at: number;
  /** source (directory, SCIM, import, CLI) or owner (registered and proven by its person). */
  origin: Generated<string>;
  proven_at: ColumnType<number | null, number | null | undefined, number | null>;
  registered_at: ColumnType<number | null, number | null | undefined, number | null>;
}

/** An address waiting for its proof: the code as a keyed hash, its tries left. */
export interface ChannelProofsTable {
  id: string;
  user_id: string;
  key: string;
  address: string;
  origin: string;
  code_hash: string;
  tries_left: number;
  created_at: number;
  expires_at: number;
}

/** The link that undoes a registration ("this was not me"), a keyed hash of its token. */
export interface ChannelUndoLinksTable {
  token_hash: string;
  user_id: string;
  channel_id: string;
  key: string;
  /** The address registered (migration 0036; null for older links). */
  address: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface CodesTable {
  id: string;
  user_id: string;
  /** Keyed hash (HMAC-SHA-256) of the code; the key is not in the store. */
  code_hash: string;
  created_at: number;
  expires_at: number;
  uses_left: number;
  last_used_at: number | null;
  invalidated_at: number | null;
  channel_type: string | null;
}

export interface SessionsTable {
  /** SHA-256 of the session id: a store dump does not hold usable session ids. */
  id_hash: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  ended_at: number | null;
}

export interface BrandingTable {
  name: string;
  type: string;
  value: string;
  is_default: number;
}

export interface LanguagesTable {
  code: string;
  name: string;
}

export interface MessagesTable {
  language_code: string;
  key: string;
  value: string;
}

export interface AuditLogTable {
  id: string;
  at: number;
  event: string;
  user_id: string | null;
  actor: string | null;
  client_address: string | null;
  /** JSON object; never a code, password or session id. */
  details: string;
  /** The entry's place in the trail, its chain value and the key that made it; null until sealed. */
  seq: ColumnType<number | null, number | null | undefined, number | null>;
  chain: ColumnType<string | null, string | null | undefined, string | null>;
  chain_key: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The writer's stamp (`<fingerprint>.<HMAC>` under the secret's audit-entry key, migration 0035):
   * a seal chains only stamped entries; 'legacy' for what an older version left unsealed.
   */
  stamp: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The signed head of the audit chain ('head') and its checkpoints ('checkpoint:<seq>'). */
export interface AuditChainTable {
  name: string;
  seq: number;
  chain: string;
  reason: string;
  at: number;
  chain_key: string;
  mac: string;
}

/** The last entry (seq) each audit export destination has received. */
export interface AuditExportPositionsTable {
  destination: string;
  seq: number;
  updated_at: number;
}

export interface OutboxTable {
  id: string;
  created_at: number;
  channel_type: string;
  user_id: string | null;
  idempotency_key: string;
  /** The message (recipient, subject, text) sealed with AES-256-GCM; the key is not in the store. */
  sealed: string;
}

export interface ServiceKeysTable {
  id: string;
  name: string;
  key_hash: string;
  scopes: string;
  created_at: number;
  revoked_at: number | null;
  /** When key_hash was made; null: at created_at. */
  hashed_at: number | null;
}

/** 'user:<name>' or 'address:<ip>'. */
export interface SigninFailuresTable {
  subject: string;
  failures: number;
  last_failure_at: number;
  locked_until: number | null;
}

/** 'send:user:<id>', 'send:recipient:<keyed hash>', 'send:address:<ip>', 'send:type:<type>'. */
export interface RateCountersTable {
  subject: string;
  count: number;
  /** The window started with the first take after the previous one ended. */
  window_ends_at: number;
}

/** Consecutive failed code verifications per user and the lockout they lead to. */
export interface VerifyFailuresTable {
  user_id: string;
  failures: number;
  last_failure_at: number;
  locked_at: number | null;
  /** Null with locked_at set: locked until an operator unlocks. */
  locked_until: number | null;
}

/**
 * Answers of verifications asked with an Idempotency-Key (domain/codes/retried-requests.ts): keyed
 * hashes of the caller's key and of the request, the answer once given (null while in flight).
 */
export interface VerifyAnswersTable {
  key_hash: string;
  fingerprint: string;
  answer: string | null;
  /** 1 once a retry was given the answer. */
  repeated: Generic<number>;
  expires_at: number;
}

export interface MetaTable {
  key: string;
  value: string;
}

/** Work that one instance at a time does (the retention purge), held until a time. */
export interface LeasesTable {
  name: string;
  holder: string;
  held_until: number;
}

export type Generic<T> = ColumnType<T, T | undefined, T>;
export type { Generated };

export interface ConsoleAccountsTable {
  id: string;
  /** Canonical (RFC 8265, migration 0014). */
  username: Username;
  display_name: string;
  /** admin, helpdesk or auditor. */
  role: string;
  password_hash: string;
  disabled: Generated<number>;
  created_at: number;
  /** A JSON array of group names the account is limited to; null: not limited (migration 0023). */
  scope: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ConsolePasskeysTable {
  /** base64url of the credential id. */
  credential_id: string;
  account_id: string;
  /** base64url of the COSE public key. */
  public_key: string;
  counter: number;
  /** JSON list of the authenticator's transports. */
  transports: string;
  created_at: number;
  last_used_at: number | null;
  /** A name its account gave it (migration 0025); null: none. */
  name: string | null;
}

export interface ConsoleSessionsTable {
  /** SHA-256 of the session id. */
  id_hash: string;
  account_id: string;
  /** SHA-256 of the session's cross-site token. */
  xsrf_hash: string;
  /** The WebAuthn challenge of the ceremony under way; null between ceremonies. */
  challenge: string | null;
  created_at: number;
  last_seen_at: number;
  /** When the passkey was last verified in this session; null: only the password so far. */
  passkey_at: number | null;
  ended_at: number | null;
}

export interface ConsoleEnrolmentLinksTable {
  /** Keyed hash (HMAC) of the link's token; the token itself is never kept. */
  token_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
  /** When the link was used to register the account's first passkey; null: not yet. */
  used_at: number | null;
}

/** Which console account a subject of the OpenID provider is (migration 0022). */
export interface ConsoleOidcIdentitiesTable {
  issuer: string;
  subject: string;
  account_id: string;
}

/** A sign-in with the OpenID provider under way, keyed by SHA-256 of the browser's flow cookie. */
export interface ConsoleOidcFlowsTable {
  browser_hash: string;
  state: string;
  nonce: string;
  code_verifier: string;
  /** 1: a sign-in again (prompt=login) before a sensitive action; the ID token's auth_time must be new. */
  again: Generated<number>;
  created_at: number;
}

/** A console session signed in with the OpenID provider. */
export interface ConsoleOidcSessionsTable {
  id_hash: string;
  /** The provider's refresh token, sealed; null: none was given. */
  refresh_token: string | null;
  /** admin, helpdesk or auditor: the session's role as the provider's claim last mapped. */
  role: string;
  /** When the session's role was last taken from the provider. */
  roles_at: number;
}

/** Which directory entry (entryUUID, objectGUID) a console account is (migration 0024). */
export interface ConsoleDirectoryAccountsTable {
  account_id: string;
  external_id: string;
}

/** A console session of a directory person: when its role was last read from the directory's groups. */
export interface ConsoleDirectorySessionsTable {
  id_hash: string;
  roles_at: number;
}

/** A one-time link to set a user's password, kept as a keyed hash of its token (migration 0025). */
export interface PasswordLinksTable {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A registration session: a challenge (code_hash) until opened, then its cookie's token_hash. */
export interface RegistrationSessionsTable {
  id: string;
  user_id: string;
  method: string;
  channel_id: string | null;
  code_hash: string | null;
  tries_left: number;
  token_hash: string | null;
  created_at: number;
  expires_at: number;
  opened_at: number | null;
}

/** A one-time registration link of the help desk or an administrator. */
export interface RegistrationLinksTable {
  token_hash: string;
  user_id: string;
  created_by: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A sign-in at the identity provider under way for the registration of channels. */
export interface RegistrationOidcFlowsTable {
  state: string;
  user_id: string;
  nonce: string;
  code_verifier: string;
  created_at: number;
}

/** A person's own passkey (migration 0031); transports as a JSON array. */
export interface UserPasskeysTable {
  credential_id: string;
  user_id: string;
  public_key: string;
  counter: number;
  transports: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

/** The challenge of a person's passkey ceremony under way: one per person and ceremony. */
export interface UserPasskeyChallengesTable {
  user_id: string;
  ceremony: string;
  challenge: string;
  expires_at: number;
}

/** A remembered device: the keyed hash of its cookie's token, bound to its person (migration 0033). */
export interface RememberedDevicesTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  forgotten_at: number | null;
}

export interface BlockedAddressesTable {
  user_id: string;
  /** The send type (sms, smtp, ...): the same address under another key is the same address. */
  type: string;
  /** Canonical (recipients.ts canonicalAddress). */
  address: string;
  blocked_at: number;
  blocked_by: string;
}

/** A subject of the registration's OpenID provider linked to its person (migration 0037, ADR 0033). */
export interface RegistrationOidcLinksTable {
  issuer: string;
  subject: string;
  user_id: string;
  linked_at: ColumnType<number, number, never>;
}
