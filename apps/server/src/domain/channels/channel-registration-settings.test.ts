import { describe, expect, it } from 'vitest';
import { channelRegistrationConfigOf } from './channel-registration-settings.js';

const MINUTE = 60_000;
const DEFAULTS = {
  DEA_CHANNELS_URL: '',
  DEA_CHANNEL_PROOF_MINUTES: 15,
  DEA_CHANNEL_PROOF_TRIES: 5,
  DEA_CHANNEL_UNDO_LINK_HOURS: 72,
  DEA_REGISTRATION_SESSION_MINUTES: 15,
  DEA_REGISTRATION_LINK_HOURS: 72,
};

/** The configuration of these values on port 8080, and the problems it named. */
function configOf(values: Partial<typeof DEFAULTS> = {}) {
  const problems: string[] = [];
  return { config: channelRegistrationConfigOf({ ...DEFAULTS, ...values }, 8080, problems), problems };
}

describe('the settings of channels people register', () => {
  it('turn minutes and hours into milliseconds', () => {
    expect(configOf().config).toEqual({
      channelsUrl: 'http://localhost:8080/dea/channels/',
      proofMs: 15 * MINUTE,
      proofTries: 5,
      undoLinkMs: 72 * 60 * MINUTE,
      registrationSessionMs: 15 * MINUTE,
      registrationLinkMs: 72 * 60 * MINUTE,
    });
  });

  it("take the channels page's address as given, ending in a slash", () => {
    expect(configOf({ DEA_CHANNELS_URL: ' https://dea.example.com/dea/channels ' })).toEqual({
      config: expect.objectContaining({ channelsUrl: 'https://dea.example.com/dea/channels/' }),
      problems: [],
    });
    expect(configOf({ DEA_CHANNELS_URL: 'http://dea.test/dea/channels/' }).config.channelsUrl).toBe(
      'http://dea.test/dea/channels/',
    );
  });

  it('name an address that is none, not http(s), or has a query or fragment, and fall back to this server', () => {
    for (const text of [
      'dea.example.com/channels',
      'ftp://dea.example.com/',
      'https://dea.example.com/?a=1',
      'https://dea.example.com/#x',
    ]) {
      const { config, problems } = configOf({ DEA_CHANNELS_URL: text });
      expect(config.channelsUrl, text).toBe('http://localhost:8080/dea/channels/');
      expect(problems, text).toEqual([
        expect.stringContaining(`DEA_CHANNELS_URL=${JSON.stringify(text)}: must be`),
      ]);
    }
  });
});
