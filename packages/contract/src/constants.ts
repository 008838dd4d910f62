/** Business constants of the specification, section 9. */
export const APP_VERSION = '8.0.20';
export const API_BASE_PATH = '/dea/api/';
export const PAGE_BASE_PATH = '/dea/';
export const LOGOUT_PATH = '/dea/logout';
export const LOGIN_API_SESSION_PATH = '/login/api/session';
/** Where the login application's form sends the new password of a one-time password link. */
export const LOGIN_API_PASSWORD_LINK_PATH = '/login/api/password-link';
/** Where the login application's password link puts its token: after '#'. */
export const PASSWORD_LINK_FRAGMENT = 'reset=';
export const CODE_COUNT_PER_REQUEST = 1;
export const POLICY_CATEGORY_SELF_SERVICE = 'Self Service';
/** The policy category that says which console roles may give the group's members a code. */
export const POLICY_CATEGORY_HELP_DESK = 'Help Desk';
export const CHANNEL_QUERY_ACTION = 'ec';
export const DEFAULT_LANGUAGE = 'en';
export const LAST_LOGIN_FORMAT = 'dd. MMM. yyyy HH:mm';
/** Delivery mode meaning "send via channel"; anything else shows the code on screen. */
export const CHANNEL_DELIVERY_MODE = 'Channel';
export const RESULT_MODAL_SIZE = 'md';
export const MODAL_CLOSE_ANIMATION_SECONDS = 0.2;

export const SESSION_STORAGE_KEYS = {
  lang: 'lang',
  emergencyCode: 'emergencyCode',
  emergencyCodeId: 'emergencyCodeId',
  /** The product's addition: when the code on screen expires (ms since the epoch), for its countdown. */
  emergencyCodeExpiresAt: 'emergencyCodeExpiresAt',
  username: 'username',
} as const;

export const LOCAL_STORAGE_KEYS = {
  lang: 'lang',
} as const;

/** Cross-site request token: a cookie readable by the page, echoed in a header. */
export const XSRF_COOKIE_NAME = 'XSRF-TOKEN';
/** The token cookie's name behind TLS: the __Host- prefix keeps sibling hosts from planting one. */
export const XSRF_COOKIE_NAME_TLS = `__Host-${XSRF_COOKIE_NAME}`;
export const XSRF_HEADER_NAME = 'X-XSRF-TOKEN';

/** Query parameters of the login application and the logout landing. */
export const RETURN_ENDPOINT_PARAM = 'ep';
export const USERNAME_PARAM = 'username';

/** What a service key may do: `verify` calls POST /dea/api/tempPass/verify; `scim` provisions users and groups at /scim/v2/. */
export const SERVICE_KEY_SCOPES = ['verify', 'scim'] as const;

/**
 * The rule of a new password, whatever door sets it (the CLI, the console, a password link, SCIM):
 * at least 8 characters (NIST SP 800-63B), at most 1,024, which keeps hashing cheap. Characters
 * are Unicode code points, as JSON Schema counts them. A password given to sign in is only bounded
 * (SignInRequest): an older one may be shorter. The check is passwords.ts's newPasswordProblem.
 */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;
