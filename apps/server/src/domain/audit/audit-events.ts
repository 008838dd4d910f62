/**
 * Every event the audit log can hold, with what it records. One list: the store's entries, the
 * metrics and (later) the audit export take their events from here, and a new event that one of
 * them does not handle fails the typecheck. Never a code, a password or a full address in details.
 */
export const AUDIT_EVENTS = {
  // sign-in (actor: the user name, or unknown:<keyed hash> for a name that is no user)
  'signin.succeeded': 'a password was right; a session started',
  'signin.failed':
    "a password was checked and refused (details.reason: wrong-password, unknown-user, disabled, name-owned-by-directory, directory-entry-replaced with details.externalId and previousExternalId (the directory's entry of this name was replaced; the old user stays until removed), or directory-account with details.directoryProblem, Active Directory's reason: must-change-password, locked, password-expired, disabled, account-expired, not-allowed-now, not-allowed-here)",
  'signin.locked': 'an attempt refused unchecked: a sign-in limit holds (details.limit)',
  'signin.busy': 'an attempt refused unchecked: every hashing slot and queue place was taken',
  'signin.abandoned':
    'an attempt whose client left before its answer: no hash when it left while waiting for one, no session when it left after a right password',
  'signin.directory_unavailable':
    'an attempt refused unchecked: the directory could not be reached (details.cause)',
  signout: 'the user signed out; their registration sessions ended (details: registrationSessionsEnded)',
  // codes (actor: the user id, a service key or a RADIUS client)
  'code.issued': 'a code was made (shown on screen or about to be sent)',
  'code.refused': 'no code: the policy does not allow one, or the user holds too many unused ones',
  'code.revoked':
    'the user took back one of their own unused codes (the page does, before asking for its replacement)',
  'code.screen_untrusted':
    'no code on screen: the person\'s "Channel Registration" policy asks for a reason to trust (screenCodeTrustedNetworks, screenCodeRememberedDeviceDays) and the request came from neither a trusted network nor a remembered device of theirs (details.device: none, unknown, other-user, tampered, expired or forgotten)',
  'code.send_refused':
    'no code sent: unknown or unusable recipient (a channel its person registered: details.reason cooling or proof-expired), or a send limit',
  'code.sent': 'a code reached its delivery provider',
  'code.delivery_failed': 'a code could not be delivered and was invalidated',
  'code.used': 'a code was verified and consumed',
  'code.use_given_back':
    "a verification's client left before its answer: the use it took is given back, so the code still works",
  'code.verify_failed': 'a verification failed (details.reason)',
  'code.verify_lockout': "a user's codes are locked after too many failed verifications",
  'code.verify_locked': 'a verification refused while the lock holds',
  'code.verify_unlocked': 'an operator ended a verification lock',
  'codes.switched_off':
    "a user's codes were switched off (disabled, or their group policy no longer allows codes): their unused codes were revoked (details: cause, codeIds)",
  'codes.purged': 'used and expired codes were removed (written before dea purge came; now store.purged)',
  'store.purged':
    'the retention purge removed rows (details.removed: how many codes, sessions, consoleSessions, signinFailures, rateCounters, verifyAnswers, audit, outbox)',
  'notice.sent': "a notice (without the code) reached one of the user's other channels",
  'notice.failed': 'a notice could not be delivered',
  // operators (actor: cli)
  'user.created':
    'a user was added (a person from a source outside the product, the directory, SCIM or an import: details.channels, the channel keys, and details.groups, the groups it gave them, in this one entry)',
  'user.updated': "a user's name, locale or time zone changed",
  'user.password_set':
    "a user's password was set; their sessions and registration sessions ended (details: sessionsEnded, registrationSessionsEnded)",
  'user.password_link_issued':
    "a one-time link to set a user's password was made (the console's People screen or dea user password-link; details.expiresAt)",
  'user.password_link_refused':
    'a one-time password link was refused (details.reason: unknown, used, expired)',
  'user.signed_out':
    "an operator ended a user's sessions and registration sessions (details: sessionsEnded, registrationSessionsEnded)",
  'user.disabled':
    'a user was disabled; their sessions and registration sessions ended (details: sessionsEnded, registrationSessionsEnded)',
  'user.enabled': 'a user was enabled',
  'user.removed': 'a user was removed with channels, codes and sessions',
  'channel.set': "a user's channel was set",
  'channel.removed':
    "a user's channel was removed (details.origin owner: by its person on the channels page; console: by the agent named as actor)",
  // people's own channels (actor: the user id, or whoever asked for them: console:<account>
  // for a local user's channel proven in the console, details.origin console)
  'channel.proof_sent':
    'a code that proves a new address was sent to it (details: key, channel, to, origin, proofId, expiresAt)',
  'channel.proof_refused':
    'an address was not taken or not proven (details.reason: type-not-allowed, owned-by-source, too-many, unusable-address, rate-limit, delivery-failed, wrong-code, expired, no-tries, unknown, taken-meanwhile, address-blocked, user-disabled (the console door, for a disabled user); type-not-allowed, too-many and address-blocked checked again as the proof ends)',
  'channel.registered':
    'an address was proven and became the channel of its key (by its person, or with the code the person read out to a console agent, details.origin console; details: key, to, origin, channelId, reproof, usableFrom: when it may first receive emergency codes)',
  'channel.registration_undone':
    "the link in a new channel's notice was used (\"this was not me\"): someone else knows the person's password. The channel and what was added since (details.since: the person's other channels, proofs, passkeys, remembered devices) were removed, the addresses removed blocked until the help desk allows them, every session, registration session and unused registration link ended and their unused codes taken back (ADR 0034); the help desk's alert (a webhook of this event; details: key, channelId, removed, since, channelsRemoved, proofsEnded, passkeysRemoved, devicesForgotten, blocked, sessionsEnded, registrationSessionsEnded, registrationLinksRevoked, codesRevoked, passwordKnown, passwordChange: help-desk (a password link) or organisation)",
  'channel.addresses_allowed':
    'the help desk or dea user allow-addresses allowed a person to register again the addresses an undo blocked (details: count, allowed)',
  'registration.challenge_sent':
    "a code that opens the registration of channels was sent to one of the person's proven channels (details: channelKey, channel, to, challengeId)",
  'registration.opened':
    'a strong sign-in opened a registration session (details.method: channel-code, link, passkey with credentialId, or oidc with issuer and subject, and linked: true when this first registration through the provider linked the subject to the person; sessionId, expiresAt)',
  'registration.provider_unlinked':
    "a person's link to a subject of the registration's OpenID provider was removed (dea user unlink-provider; details: count): their next registration through it links again (ADR 0033)",
  'registration.refused':
    "a registration session was not opened (details.method; details.reason: unknown-recipient, unusable-channel, rate-limit, delivery-failed, wrong-code, expired, no-tries, unknown, taken-meanwhile, link-unusable, undone-meanwhile (the undo link was used while the sign-in was checked: what it opened ended); for passkey no-passkey, challenge-unknown (replayed, expired or answered already), unknown-passkey (not one of this person's), not-verified, counter; for oidc provider-unavailable, provider-error, state-unknown, token-refused (also an authentication at the provider older than five minutes, details.authTime), other-person (a subject linked to someone else, another subject than the person's link, or unlinked and a claim that is not exactly the user name), mfa-missing)",
  // people's own passkeys (actor: the user id, or console:<agent> or cli when forgotten)
  'passkey.registered':
    'a person added a passkey inside a registration session (details: credentialId, aaguid)',
  'passkey.refused':
    'a passkey was not added (details.reason: too-many, challenge-unknown, not-verified, already-registered)',
  'passkey.renamed': 'a person renamed one of their passkeys (details: credentialId)',
  'passkey.removed': 'a person removed one of their passkeys (details: credentialId)',
  'passkey.forgotten':
    'every passkey of a person was removed by the help desk or dea user forget-passkeys (details: count)',
  'registration.link_issued':
    "a one-time registration link was made for a person (dea user registration-link, the help desk; details: expiresAt, earlierRevoked: the person's earlier unused links it ended)",
  'device.remembered':
    'a browser that opened a registration session became a remembered device of its person, on which codes may be shown on screen (details: deviceId, method, expiresAt)',
  'device.forgotten':
    "a person's remembered devices were forgotten (by the person, the help desk or dea user forget-devices; details.count)",
  'channel.test_sent':
    "a test message (no code) went to one of a person's channels, asked for on the channels page (details: key, channel, to, provider)",
  'channel.test_refused':
    "a channel's test message was not sent (details.reason: unknown-recipient, unusable-address, rate-limit, delivery-failed)",
  'channel.undo_refused':
    "a link to undo a channel's registration was refused (details.reason unusable: unknown, used or expired, never which)",
  'group.created': 'a group was added',
  'group.renamed': 'a group was renamed (details: from, group)',
  'group.removed': 'a group was removed with its policies and memberships (details: group, source, members)',
  'group.owner_set':
    'a group was handed to SCIM or taken back by an operator, or released by SCIM (details: group, from, owner: local or scim, released)',
  'group.external_id_set':
    "a group's externalId (the SCIM client's own id of it) changed (details: group, from, externalId)",
  'group.member_added': 'a user joined a group',
  'group.member_removed': 'a user left a group',
  'user.groups_left':
    'a user the source no longer has (details.reason: not in source) left the groups that source gave them, all in this one entry (details: groups, source)',
  'policy.set': "a group's policy changed",
  'branding.set': 'a branding entry changed',
  'branding.reset': 'a branding entry went back to its default',
  'language.added': 'a language was added',
  'messages.imported': "a language's texts were imported",
  'service_key.created': 'a service key was made',
  'service_key.revoked': 'a service key was revoked',
  'demo.seeded': 'the demo users were created',
  'system.start': 'a server instance started',
  'directory.synced':
    'all directory users were brought up to date (details: created, updated, disabled, unchanged, failed)',
  'users.imported':
    'an import file was taken (details: file, created, updated, disabled, unchanged, skipped, failed)',
  // the console (actor: console:<account> or cli)
  'console.signin': 'a console account signed in with its passkey (details: role, credentialId)',
  'console.signin_failed': 'a console password was refused or not checked (details.reason)',
  'console.passkey_registered': 'a console account registered a passkey',
  'console.passkey_refused':
    'a passkey ceremony of the console failed (details.ceremony; details.reason authenticator-not-allowed, with aaguid and fmt, when DEA_CONSOLE_PASSKEY_AAGUIDS refused the model)',
  'console.signout': 'a console account signed out',
  'console.account_created': 'a console account was made (dea admin add)',
  'console.account_changed':
    'a console account was disabled, enabled, given a password or had its passkeys removed',
  'console.account_removed': 'a console account was removed',
  'console.enrolment_link_issued':
    "a one-time link to register a console account's first passkey was made (dea admin add or reset-passkeys; details: username, expiresAt)",
  'console.enrolment_link_used': 'a console account registered its first passkey through its enrolment link',
  'console.enrolment_link_refused':
    'a first passkey was refused for want of a valid enrolment link (details.reason: missing, unknown, used, expired, other-account)',
  'console.codes_revoked': 'a help-desk agent took back unused codes of a user (details.codeIds)',
  'console.oidc_signin':
    'a person signed in to the console through the OpenID provider (details: issuer, subject, role, claimValues, created: the account made at this first sign-in, authenticatedAt: auth_time, from which the second factor counts as fresh)',
  'console.oidc_refused':
    'a sign-in or role refresh through the OpenID provider was refused (details.stage signin or refresh; details.reason: provider-unavailable, provider-error, state-unknown, wrong-issuer, token-refused, mfa-missing, unmapped, disabled, username-taken, refresh-failed)',
  'console.oidc_role_changed':
    "a console session's role or scope changed when it was taken again from the OpenID provider (details: from, to; fromScope, toScope when the scope changed)",
  'console.directory_role_changed':
    "a directory person's console role or scope changed as it was read from their groups (DEA_CONSOLE_LDAP_ROLES) at a sign-in or a session's refresh (details: from, to, groups; fromScope, toScope when the scope changed); to null: no mapped group, disabled or gone from the directory, the session ended (details.reason)",
} as const;

export type AuditEventName = keyof typeof AUDIT_EVENTS;

export const isAuditEventName = (name: string): name is AuditEventName => Object.hasOwn(AUDIT_EVENTS, name);

/** The store takes exactly these events (store/audit-event-names.ts owns the registry). */
declare module '../../store/audit-event-names.js' {
  // oxlint-disable-next-line typescript/no-empty-object-type -- the events are its keys
  interface AuditEventRegistry extends Record<keyof typeof AUDIT_EVENTS, true> {}
}
