import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('delivery settings', () => {
  it('deliver to the outbox when nothing is configured', () => {
    const { delivery, sendLimits } = loadConfig({});
    expect(delivery.routes).toEqual({
      smtp: 'outbox',
      sms: 'outbox',
      TELEPHONE: 'outbox',
      TWITTER: 'outbox',
    });
    expect(delivery.notifyOtherChannels).toBe(true);
    expect(sendLimits.perUser).toEqual({ max: 5, windowMs: 10 * 60_000 });
  });

  it('pick the configured provider on auto, and off switches a type off', () => {
    const { delivery } = loadConfig({
      DEA_SMTP_HOST: 'smtp.example.com',
      DEA_SMTP_FROM: 'dea@example.com',
      DEA_SMS_HTTP_URL: 'https://sms.example.com/send',
      DEA_TWITTER_TOKEN: 't',
      DEA_DELIVERY_VOICE: 'off',
      DEA_ALLOWED_PHONE_PREFIXES: '+49, +43',
    });
    expect(delivery.routes).toEqual({ smtp: 'smtp', sms: 'http', TELEPHONE: 'off', TWITTER: 'twitter' });
    expect(delivery.allowedPhonePrefixes).toEqual(['+49', '+43']);
  });

  it('name every bad field at once', () => {
    const problems = problemsOf({
      DEA_DELIVERY_EMAIL: 'smtp',
      DEA_DELIVERY_SMS: 'http',
      DEA_DELIVERY_TWITTER: 'twitter',
      DEA_VOICE_HTTP_URL: 'https://voice.example.com/call',
      DEA_VOICE_HTTP_HEADERS: '{"Authorization": 5}',
      DEA_VOICE_HTTP_BODY: '{"to":{recipient}}',
      DEA_VOICE_HTTP_SUCCESS_STATUS: 'ok',
      DEA_VOICE_HTTP_SUCCESS_BODY: '(',
      DEA_SMTP_SECURE: 'maybe',
      DEA_ALLOWED_PHONE_PREFIXES: '49',
      DEA_SEND_LIMIT_PER_USER: '0',
    });
    const named = problems.map((problem) => /^[A-Z_]+/.exec(problem)?.[0]);
    expect(named).toEqual(
      expect.arrayContaining([
        'DEA_DELIVERY_EMAIL',
        'DEA_DELIVERY_SMS',
        'DEA_DELIVERY_TWITTER',
        'DEA_VOICE_HTTP_HEADERS',
        'DEA_VOICE_HTTP_BODY',
        'DEA_VOICE_HTTP_SUCCESS_STATUS',
        'DEA_VOICE_HTTP_SUCCESS_BODY',
        'DEA_SMTP_SECURE',
        'DEA_ALLOWED_PHONE_PREFIXES',
        'DEA_SEND_LIMIT_PER_USER',
      ]),
    );
  });

  it('refuse a From header that could carry more than an address, and header values with line breaks', () => {
    expect(
      problemsOf({ DEA_SMTP_HOST: 'smtp.example.com', DEA_SMTP_FROM: 'a@b.example\r\nBcc: x@y.example' }),
    ).toEqual([expect.stringMatching(/^DEA_SMTP_FROM/)]);
    expect(
      problemsOf({
        DEA_SMS_HTTP_URL: 'https://sms.example.com',
        DEA_SMS_HTTP_HEADERS: '{"X-A":"1\\r\\nX-B: 2"}',
      }),
    ).toEqual([expect.stringMatching(/^DEA_SMS_HTTP_HEADERS/)]);
  });
});
