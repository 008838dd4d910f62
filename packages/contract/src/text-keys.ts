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
  'content.tryAgain',
  'content.copyExpired',
  'content.nextCodeAt',
  'content.sentUntil',
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

/** The keys of the texts built into the page, for when no catalog can be loaded. */
export const BUILT_IN_PAGE_TEXT_KEYS = [
  'loading',
  'content.unavailableTitle',
  'error.generic',
  'content.tryAgain',
  'logout',
] as const satisfies readonly TextKey[];
export type BuiltInPageTexts = Readonly<Record<(typeof BUILT_IN_PAGE_TEXT_KEYS)[number], string>>;

/**
 * The texts the page shows before or without any catalog (its texts or the language list failed
 * at startup, or have not come yet): the loading state's heading and spec section 8's generic
 * failure, with a way to try again and to log out, in each of the 11 built-in languages, built
 * in. They are each catalog's own texts (the server's catalogs.test.ts holds them equal).
 */
export const BUILT_IN_PAGE_TEXTS: Readonly<Record<string, BuiltInPageTexts>> & { en: BuiltInPageTexts } = {
  en: {
    loading: 'Loading…',
    'content.unavailableTitle': 'Emergency access cannot be shown right now',
    'error.generic': 'An error occurred, please try again later',
    'content.tryAgain': 'Try again',
    logout: 'Log out',
  },
  de: {
    loading: 'Wird geladen…',
    'content.unavailableTitle': 'Der Notfallzugang kann gerade nicht angezeigt werden',
    'error.generic': 'Ein Fehler ist aufgetreten. Bitte versuchen Sie es später erneut',
    'content.tryAgain': 'Erneut versuchen',
    logout: 'Abmelden',
  },
  fr: {
    loading: 'Chargement…',
    'content.unavailableTitle': "L'accès d'urgence ne peut pas être affiché pour le moment",
    'error.generic': "Une erreur s'est produite, veuillez réessayer ultérieurement",
    'content.tryAgain': 'Réessayer',
    logout: 'Se déconnecter',
  },
  es: {
    loading: 'Cargando…',
    'content.unavailableTitle': 'El acceso de emergencia no se puede mostrar ahora',
    'error.generic': 'Se ha producido un error. Vuelva a intentarlo más tarde',
    'content.tryAgain': 'Reintentar',
    logout: 'Cerrar sesión',
  },
  it: {
    loading: 'Caricamento…',
    'content.unavailableTitle': "L'accesso di emergenza non può essere mostrato ora",
    'error.generic': 'Si è verificato un errore. Riprovare più tardi',
    'content.tryAgain': 'Riprova',
    logout: 'Esci',
  },
  nl: {
    loading: 'Laden…',
    'content.unavailableTitle': 'De noodtoegang kan nu niet worden getoond',
    'error.generic': 'Er is een fout opgetreden. Probeer het later opnieuw',
    'content.tryAgain': 'Opnieuw proberen',
    logout: 'Afmelden',
  },
  pt: {
    loading: 'A carregar…',
    'content.unavailableTitle': 'O acesso de emergência não pode ser mostrado agora',
    'error.generic': 'Ocorreu um erro. Tente novamente mais tarde',
    'content.tryAgain': 'Tentar novamente',
    logout: 'Terminar sessão',
  },
  pl: {
    loading: 'Ładowanie…',
    'content.unavailableTitle': 'Nie można teraz wyświetlić dostępu awaryjnego',
    'error.generic': 'Wystąpił błąd. Prosimy spróbować ponownie później',
    'content.tryAgain': 'Spróbuj ponownie',
    logout: 'Wyloguj się',
  },
  ja: {
    loading: '読み込み中…',
    'content.unavailableTitle': '緊急アクセスを今は表示できません',
    'error.generic': 'エラーが発生しました。しばらくしてからもう一度お試しください',
    'content.tryAgain': '再試行',
    logout: 'ログアウト',
  },
  zh: {
    loading: '正在加载…',
    'content.unavailableTitle': '暂时无法显示紧急访问',
    'error.generic': '发生错误，请稍后重试',
    'content.tryAgain': '重试',
    logout: '退出登录',
  },
  ar: {
    loading: 'جارٍ التحميل…',
    'content.unavailableTitle': 'لا يمكن عرض الوصول الطارئ الآن',
    'error.generic': 'حدث خطأ، يُرجى المحاولة مرة أخرى لاحقًا',
    'content.tryAgain': 'إعادة المحاولة',
    logout: 'تسجيل الخروج',
  },
};

/** The built-in texts of a language ('pt_BR', 'de-AT': by its primary part), English when none. */
export function builtInPageTexts(languageCode: string | undefined): BuiltInPageTexts {
  const primary = (languageCode ?? '').split(/[_-]/)[0]?.toLowerCase() ?? '';
  return BUILT_IN_PAGE_TEXTS[primary] ?? BUILT_IN_PAGE_TEXTS.en;
}

/**
 * The groups of texts the page (`/dea/`) never shows: those of the messages the server sends, of
 * the channels page, of the console, of the login application and its password link form. The
 * page's HTML carries its texts without them (about half of a catalog), where GET message
 * answers whole catalogs. A test of the page (apps/web/src/app/page-text-keys.test.ts) fails when
 * it uses a key of these groups.
 */
export const TEXT_GROUPS_NOT_ON_THE_PAGE = [
  'delivery.',
  'channels.',
  'console.',
  'login.',
  'passwordLink.',
] as const;

/** Whether the page may show the text of `key` (it is in none of TEXT_GROUPS_NOT_ON_THE_PAGE). */
export function isPageTextKey(key: string): boolean {
  return !TEXT_GROUPS_NOT_ON_THE_PAGE.some((group) => key.startsWith(group));
}

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
