import { describe, expect, test } from 'vitest';
import { consoleEnrolmentConfigOf } from './console-settings.js';

const MODEL = 'cb69481e-8ff7-4039-93ec-0a2729a154a8';

function configOf(values: { url?: string; hours?: number; aaguids?: string }) {
  const problems: string[] = [];
  const config = consoleEnrolmentConfigOf(
    {
      DEA_CONSOLE_URL: values.url ?? '',
      DEA_CONSOLE_ENROLMENT_LINK_HOURS: values.hours ?? 24,
      DEA_CONSOLE_PASSKEY_AAGUIDS: values.aaguids ?? '',
    },
    9000,
    problems,
  );
  return { config, problems };
}

describe("the console's enrolment settings", () => {
  test("by default links go to this server's console, valid a day, for any authenticator", () => {
    expect(configOf({})).toEqual({
      config: {
        consoleUrl: 'http://localhost:9000/admin/',
        enrolmentLinkMs: 24 * 3_600_000,
        allowedAaguids: [],
      },
      problems: [],
    });
    expect(configOf({ hours: 2 }).config.enrolmentLinkMs).toBe(2 * 3_600_000);
  });

  test("the console's address ends in a slash, and must be http or https without a query or fragment", () => {
    expect(configOf({ url: ' https://dea.example.com/admin ' }).config.consoleUrl).toBe(
      'https://dea.example.com/admin/',
    );
    for (const url of [
      'dea.example.com/admin',
      'ftp://dea.example.com/admin/',
      'https://dea.example.com/admin/?x=1',
      'https://dea.example.com/admin/#enrol=',
    ])
      expect(configOf({ url }), url).toEqual({
        config: expect.objectContaining({ consoleUrl: 'http://localhost:9000/admin/' }),
        problems: [
          expect.stringContaining(`DEA_CONSOLE_URL=${JSON.stringify(url)}: must be the console's address`),
        ],
      });
  });

  test('allowed models are AAGUIDs, trimmed and lowercase; anything else is named as a problem', () => {
    expect(configOf({ aaguids: ` ${MODEL.toUpperCase()} , ,` })).toEqual({
      config: expect.objectContaining({ allowedAaguids: [MODEL] }),
      problems: [],
    });
    expect(configOf({ aaguids: `${MODEL},yubikey` })).toEqual({
      config: expect.objectContaining({ allowedAaguids: [MODEL] }),
      problems: [
        'DEA_CONSOLE_PASSKEY_AAGUIDS: "yubikey" is not an AAGUID such as cb69481e-8ff7-4039-93ec-0a2729a154a8',
      ],
    });
  });
});
