/**
 * Every text key of the product. The first group is spec section 8; the rest are the texts the
 * product adds (errors, accessibility labels, login application, delivered messages).
 * Placeholders are written `{name}`.
 */
export const TEXT_KEYS = [
  // spec section 8
  'content.notAuthorized',
  'content.noChannel',
  'content.title',
  'content.yourCode',
  'content.yourCodeUses',
  'content.copyCode',
  'content.requestCode',
  'successMessage',
  'logout',
  'confirmMessage.logout',
  'cancel',
  'ok',
  'message',
  'loading',
  'loadingCustom',
  'user.lastLogin',
  'user.logout',
  'header.settings.language',
  'logoutLanding.title',
  'logoutLanding.content',
  'logoutLanding.backToLogin',
  // the page
  'app.title',
  'app.copyright',
  'app.version',
  'header.logo',
  'header.userMenu',
  'content.codeCopied',
  'content.copyFailed',
  'content.validUntil',
  'content.codeExpired',
  'content.notAuthorizedTitle',
  'content.unavailableTitle',
  'content.sending',
  'content.chooseRecipient',
  'content.channel.sms',
  'content.channel.email',
  'content.channel.telephone',
  'content.channel.twitter',
  'content.recipientWork',
  'content.recipientPersonal',
  'content.screenCodeUntrusted',
  'content.callHelpDesk',
  'close',
  'error.generic',
  'error.userLocale',
  // envelope messages
  'error.internal',
  'error.unavailable',
  'error.invalidRequest',
  'error.notPermitted',
  'error.codesNotEnabled',
  'error.channelProofInvalid',
  'error.channelNotRegistrable',
  'error.channelUndoInvalid',
  'error.channelAddressBlocked',
  'error.registrationSignInNeeded',
  'error.wrongDeliveryMode',
  'error.screenCodeUntrusted',
  'error.notSignedIn',
  'error.sessionExpired',
  'error.xsrf',
  'error.unknownChannel',
  'error.tooManyRequests',
  'error.codeStoreFull',
  'error.codeStoreFullUntil',
  'error.deliveryFailed',
  'error.notFound',
  // the login application
  'login.title',
  'login.heading',
  'login.username',
  'login.password',
  'login.submit',
  'login.signingIn',
  'login.failed',
  'login.directoryAccount',
  'login.locked',
  'login.required',
  'login.signedIn',
  // the login application's form behind a one-time password link
  'passwordLink.heading',
  'passwordLink.newPassword',
  'passwordLink.hint',
  'passwordLink.submit',
  'passwordLink.tooShort',
  'passwordLink.saved',
  // the console's passkey enrolment
  'console.enrolmentLinkNeeded',
  'console.enrolmentLinkInvalid',
  'console.authenticatorNotAllowed',
  // the console's sign-in of directory people (DEA_CONSOLE_LDAP_ROLES)
  'console.noDirectoryRole',
  // a one-time link to set a user's password
  'error.passwordLinkInvalid',
  // the channels page (/dea/channels/)
  'channels.title',
  'channels.working',
  'channels.code',
  'channels.confirm',
  'channels.signIn.heading',
  'channels.signIn.why',
  'channels.signIn.byCode',
  'channels.signIn.sendCode',
  'channels.signIn.codeSent',
  'channels.signIn.noChannel',
  'channels.signIn.byProvider',
  'channels.signIn.provider',
  'channels.signIn.providerRefused',
  'channels.signIn.byLink',
  'channels.signIn.linkHint',
  'channels.sessionUntil',
  'channels.list.heading',
  'channels.list.none',
  'channels.source.ldap',
  'channels.source.scim',
  'channels.source.import',
  'channels.source.local',
  'channels.owner',
  'channels.state.proven',
  'channels.state.cooling',
  'channels.state.proofExpired',
  'channels.state.pending',
  'channels.sendTest',
  'channels.testSent',
  'channels.remove',
  'channels.removed',
  'channels.add.heading',
  'channels.add.kind',
  'channels.add.address',
  'channels.add.submit',
  'channels.add.limit',
  'channels.add.full',
  'channels.add.notAllowed',
  'channels.prove.heading',
  'channels.prove.sent',
  'channels.prove.tries',
  'channels.prove.submit',
  'channels.prove.resend',
  'channels.proven',
  'channels.back',
  'channels.devices.heading',
  'channels.devices.intro',
  'channels.devices.forget',
  'channels.devices.forgotten',
  // the person's passkeys, on the channels page
  'channels.passkeys.signIn',
  'channels.passkeys.waiting',
  'channels.passkeys.browserRefused',
  'channels.passkeys.failed',
  'channels.passkeys.heading',
  'channels.passkeys.intro',
  'channels.passkeys.none',
  'channels.passkeys.addedOn',
  'channels.passkeys.lastUsed',
  'channels.passkeys.neverUsed',
  'channels.passkeys.nameLabel',
  'channels.passkeys.defaultName',
  'channels.passkeys.add',
  'channels.passkeys.rename',
  'channels.passkeys.renameLabel',
  'channels.passkeys.save',
  'channels.passkeys.cancel',
  'channels.passkeys.remove',
  'channels.passkeys.removeLabel',
  'channels.undo.heading',
  'channels.undo.text',
  'channels.undo.submit',
  'channels.undo.done',
  'channels.undo.passwordHelpDesk',
  'channels.undo.passwordOrganisation',
  // delivered messages
  'delivery.subject',
  'delivery.text',
  'delivery.voice',
  'delivery.notice.subject',
  'delivery.notice.text',
  'delivery.notice.screenText',
  'delivery.proof.subject',
  'delivery.proof.text',
  'delivery.proof.voice',
  'delivery.channelNotice.subject',
  'delivery.channelNotice.text',
  'delivery.registration.subject',
  'delivery.registration.text',
  'delivery.registration.voice',
  'delivery.test.subject',
  'delivery.test.text',
  'delivery.test.voice',
] as const;

export type TextKey = (typeof TEXT_KEYS)[number];
export type Catalog = Readonly<Record<TextKey, string>>;

/**
 * The texts the page shows when no catalog could be loaded at all (the language list or the texts
 * failed at startup): spec section 8's generic failure, in English, built in. They are the English
 * catalog's own texts (the server's catalogs.test.ts holds them equal).
 */
export const BUILT_IN_PAGE_TEXTS = {
  'content.unavailableTitle': 'Emergency access cannot be shown right now',
  'error.generic': 'An error occurred, please try again later',
} as const satisfies Partial<Catalog>;

/**
 * The texts the login application shows (its sign-in form, the form of a one-time password link,
 * the branding around them, the language menu, the loading state and the startup failure): what
 * the server embeds in the login application's HTML, where the whole catalog would be
 * 12 KB of texts the form never shows. GET message still answers whole catalogs. A test of the
 * login application (apps/web/src/login-app/login-text-keys.test.ts) fails when it uses a key
 * not listed here.
 */
export const LOGIN_TEXT_KEYS = [
  'app.title',
  'app.copyright',
  'app.version',
  'header.logo',
  'header.settings.language',
  'loading',
  'loadingCustom',
  'content.unavailableTitle',
  'error.generic',
  'error.userLocale',
  'login.heading',
  'login.username',
  'login.password',
  'login.submit',
  'login.signingIn',
  'login.required',
  'login.signedIn',
  'passwordLink.heading',
  'passwordLink.newPassword',
  'passwordLink.hint',
  'passwordLink.submit',
  'passwordLink.tooShort',
  'passwordLink.saved',
] as const satisfies readonly TextKey[];

export function isTextKey(value: string): value is TextKey {
  return (TEXT_KEYS as readonly string[]).includes(value);
}

/** The `{name}` placeholders a text uses, sorted. */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '').sort();
}

/** Replaces `{name}` placeholders; unknown placeholders are left as they are. */
export function formatText(text: string, values: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}
