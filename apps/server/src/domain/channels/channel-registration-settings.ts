import Type from 'typebox';
import type { SettingValues } from '../../setting-values.js';

/** Where the people's channels page lives (its undo links point there). */
export const CHANNELS_PAGE_PATH = '/dea/channels/';

/** People registering and proving their own channels. */
export const channelRegistrationSettings = {
  DEA_CHANNELS_URL: {
    schema: Type.String({ default: '' }),
    doc: "The channels page's address as people reach it (https://dea.example.com/dea/channels/): the link in the notice of a new channel, which undoes it, points there. Empty: http://localhost:PORT/dea/channels/.",
  },
  DEA_CHANNEL_PROOF_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 1440, default: 15 }),
    doc: 'How long the code that proves a new address stays valid.',
  },
  DEA_CHANNEL_PROOF_TRIES: {
    schema: Type.Integer({ minimum: 1, maximum: 20, default: 5 }),
    doc: 'Wrong codes a proof takes before it ends (a new code must then be asked for, within the send limits).',
  },
  DEA_CHANNEL_UNDO_LINK_HOURS: {
    schema: Type.Integer({ minimum: 1, maximum: 720, default: 72 }),
    doc: "How long the link in a new channel's notice undoes the registration and alerts the help desk.",
  },
  DEA_REGISTRATION_SESSION_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 240, default: 15 }),
    doc: 'How long a registration session (opened by a strong sign-in: a code to a proven channel, a registration link) lets its person add and remove channels.',
  },
  DEA_REGISTRATION_LINK_HOURS: {
    schema: Type.Integer({ minimum: 1, maximum: 720, default: 72 }),
    doc: 'How long a one-time registration link (dea user registration-link, the help desk) stays valid.',
  },
} as const;

export interface ChannelRegistrationConfig {
  channelsUrl: string;
  proofMs: number;
  proofTries: number;
  undoLinkMs: number;
  registrationSessionMs: number;
  registrationLinkMs: number;
}

const MINUTE = 60_000;

/** The typed values as the domain uses them; a bad address is named in `problems`. */
export function channelRegistrationConfigOf(
  values: SettingValues<typeof channelRegistrationSettings>,
  port: number,
  problems: string[],
): ChannelRegistrationConfig {
  return {
    channelsUrl: channelsUrlOf(values.DEA_CHANNELS_URL.trim(), port, problems),
    proofMs: values.DEA_CHANNEL_PROOF_MINUTES * MINUTE,
    proofTries: values.DEA_CHANNEL_PROOF_TRIES,
    undoLinkMs: values.DEA_CHANNEL_UNDO_LINK_HOURS * 60 * MINUTE,
    registrationSessionMs: values.DEA_REGISTRATION_SESSION_MINUTES * MINUTE,
    registrationLinkMs: values.DEA_REGISTRATION_LINK_HOURS * 60 * MINUTE,
  };
}

function channelsUrlOf(text: string, port: number, problems: string[]): string {
  const fallback = `http://localhost:${port}${CHANNELS_PAGE_PATH}`;
  if (text === '') return fallback;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '') {
    problems.push(
      `DEA_CHANNELS_URL=${JSON.stringify(text)}: must be the channels page's address, such as https://dea.example.com/dea/channels/ (http or https, no query or fragment)`,
    );
    return fallback;
  }
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}
