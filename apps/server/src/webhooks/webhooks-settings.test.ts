import { describe } from 'vitest';
import { exportDestinationsOf, loadConfig } from '../config.js';
import { retentionRulesOf } from '../domain/retention/retention.js';
import { appTest } from '../testing/fixtures.js';
import { SECRET } from './webhooks-fixture.js';

describe('webhook settings', () => {
  appTest('refuse what they cannot use, naming the setting', ({ expect }) => {
    const problems = (settings: Record<string, string>) => {
      try {
        loadConfig(settings);
        return [];
      } catch (error) {
        return (error as { problems: string[] }).problems;
      }
    };
    expect(
      problems({ DEA_WEBHOOKS: '{"code.used":"http://siem.example.com/x"}', DEA_WEBHOOK_SECRET: SECRET }),
    ).toEqual(['DEA_WEBHOOKS: the URL of code.used must be an https:// URL']);
    expect(
      problems({
        DEA_WEBHOOKS: '{"user.created":"https://siem.example.com/x"}',
        DEA_WEBHOOK_SECRET: SECRET,
      })[0],
    ).toMatch(
      /^DEA_WEBHOOKS: "user.created" is not one of code.issued, code.sent, code.used, code.verify_lockout/,
    );
    expect(
      problems({
        DEA_WEBHOOKS: '{"code.used":"https://siem.example.com/x"}',
        DEA_WEBHOOK_SECRET: 'short',
      })[0],
    ).toMatch(/^DEA_WEBHOOK_SECRET: required with DEA_WEBHOOKS/);
    expect(problems({ DEA_WEBHOOKS: '[1]', DEA_WEBHOOK_SECRET: SECRET })).toEqual([
      'DEA_WEBHOOKS: must be a JSON object of event -> https URL',
    ]);
  });
});

describe('the retention purge', () => {
  appTest('keeps what a webhook has not received, as for the audit export', ({ expect }) => {
    const config = loadConfig({
      DEA_WEBHOOKS: JSON.stringify({ 'code.used': 'https://siem.example.com/x' }),
      DEA_WEBHOOK_SECRET: SECRET,
      DEA_AUDIT_FILE: '/var/log/dea/audit.jsonl',
    });
    expect(retentionRulesOf(config, exportDestinationsOf(config)).auditDestinations).toEqual([
      'file',
      'webhook:code.used',
    ]);
  });
});
