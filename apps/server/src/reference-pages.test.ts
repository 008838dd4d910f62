import { describe, expect, it } from 'vitest';
import {
  apiPage,
  auditEventsPage,
  cliPage,
  metricsPage,
  settingsPage,
} from '../../../scripts/docs-reference.mjs';
import { COMMAND_GROUPS } from './cli/run.js';
import { SETTINGS } from './config.js';
import { AUDIT_EVENTS } from './domain/audit/audit-events.js';
import { Metrics } from './observability/metrics.js';
import { docsPage } from './testing/guide-pages.js';
import { createTestApp } from './testing/test-app.js';

/**
 * The documentation's reference (docs/reference/, committed) is what scripts/docs-reference.mjs
 * makes of today's code: a new setting, command, option, audit event, metric or route fails here
 * until `npm run build && npm run docs:reference` has written it.
 */
describe('the reference pages of the documentation are those of the code', () => {
  const behind = 'docs/reference is behind the code: run npm run build, then npm run docs:reference';

  it('settings.md: every setting of the configuration schema', () => {
    expect(docsPage('reference/settings.md'), behind).toBe(settingsPage(SETTINGS));
  });

  it('cli.md: every command of every group, with its usage and options', () => {
    const page = docsPage('reference/cli.md');
    expect(page, behind).toBe(cliPage(COMMAND_GROUPS));
    for (const group of COMMAND_GROUPS)
      for (const name of Object.keys(group.commands)) expect(page).toContain(`### ${group.name} ${name}\n`);
  });

  it('audit-events.md: every audit event', () => {
    expect(docsPage('reference/audit-events.md'), behind).toBe(auditEventsPage(AUDIT_EVENTS));
  });

  it('metrics.md: every metric of the registry', async () => {
    expect(docsPage('reference/metrics.md'), behind).toBe(await metricsPage(Metrics));
  });

  it('api.md: every operation of the OpenAPI document the server serves', async () => {
    const t = await createTestApp('sqlite');
    try {
      const document = (await t.app.inject({ method: 'GET', url: '/dea/api/docs/json' })).json<{
        paths: Record<string, Record<string, unknown>>;
      }>();
      const page = docsPage('reference/api.md');
      expect(page, behind).toBe(apiPage(document));
      for (const [path, operations] of Object.entries(document.paths))
        for (const method of Object.keys(operations))
          expect(page).toContain(`### ${method.toUpperCase()} ${path}\n`);
    } finally {
      await t.close();
    }
  }, 60_000);
});
