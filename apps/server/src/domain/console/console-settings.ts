import { CONSOLE_PAGE_PATH } from '@dea/contract';
import Type from 'typebox';
import type { SettingValues } from '../../setting-values.js';

/** How a console account gets its first passkey: the enrolment link, and which authenticators count. */
export const consoleEnrolmentSettings = {
  DEA_CONSOLE_URL: {
    schema: Type.String({ default: '' }),
    doc: "The console's address as its people reach it (https://dea.example.com/admin/), under which dea admin add and dea admin reset-passkeys print enrolment links. Empty: http://localhost:PORT/admin/.",
  },
  DEA_CONSOLE_ENROLMENT_LINK_HOURS: {
    schema: Type.Integer({ minimum: 1, maximum: 720, default: 24 }),
    doc: 'How long the one-time enrolment link of dea admin add and dea admin reset-passkeys stays valid; a console account cannot register its first passkey without one.',
  },
  DEA_CONSOLE_PASSKEY_AAGUIDS: {
    schema: Type.String({ default: '' }),
    doc: "The authenticator models (AAGUIDs, comma-separated) a console passkey may be registered on; the browser is then asked for attestation (direct) and an authenticator that does not show one of these is refused. Empty: any authenticator. The attestation's certificate is not chained to a vendor's root (docs/operator/console.md).",
  },
} as const;

export interface ConsoleEnrolmentConfig {
  /** The console page's full address, ending in '/': enrolment links are it plus '#enrol=<token>'. */
  consoleUrl: string;
  /** How long an enrolment link is valid. */
  enrolmentLinkMs: number;
  /** Lowercase AAGUIDs a passkey may come from; empty: any authenticator. */
  allowedAaguids: readonly string[];
}

const HOUR = 60 * 60_000;
const AAGUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The enrolment part of the console's configuration; a bad value is a problem naming its setting. */
export function consoleEnrolmentConfigOf(
  values: SettingValues<typeof consoleEnrolmentSettings>,
  port: number,
  problems: string[],
): ConsoleEnrolmentConfig {
  const aaguids = values.DEA_CONSOLE_PASSKEY_AAGUIDS.split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  const bad = aaguids.filter((entry) => !AAGUID.test(entry));
  if (bad.length > 0) {
    problems.push(
      `DEA_CONSOLE_PASSKEY_AAGUIDS: ${bad.map((entry) => JSON.stringify(entry)).join(', ')} is not an AAGUID such as cb69481e-8ff7-4039-93ec-0a2729a154a8`,
    );
  }
  return {
    consoleUrl: consoleUrlOf(values.DEA_CONSOLE_URL.trim(), port, problems),
    enrolmentLinkMs: values.DEA_CONSOLE_ENROLMENT_LINK_HOURS * HOUR,
    allowedAaguids: aaguids.filter((entry) => AAGUID.test(entry)),
  };
}

function consoleUrlOf(text: string, port: number, problems: string[]): string {
  if (text === '') return `http://localhost:${port}${CONSOLE_PAGE_PATH}`;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '') {
    problems.push(
      `DEA_CONSOLE_URL=${JSON.stringify(text)}: must be the console's address, such as https://dea.example.com/admin/ (http or https, no query or fragment)`,
    );
    return `http://localhost:${port}${CONSOLE_PAGE_PATH}`;
  }
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}
