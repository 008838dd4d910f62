import Type from 'typebox';
import type { SettingValues } from '../../setting-values.js';

/** The one-time links with which a local user sets a new password. */
export const passwordLinkSettings = {
  DEA_PASSWORD_LINK_HOURS: {
    schema: Type.Integer({ minimum: 1, maximum: 168, default: 24 }),
    doc: "How long a one-time link to set a user's password (made in the console's People screen or by dea user password-link) stays valid; it opens a form of the login application and works once.",
  },
} as const;

export const passwordLinkMsOf = (values: SettingValues<typeof passwordLinkSettings>): number =>
  values.DEA_PASSWORD_LINK_HOURS * 60 * 60_000;
