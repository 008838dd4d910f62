import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { appTest } from '../testing/fixtures.js';

/** deploy/prometheus of this checkout. */
const RULES_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../../deploy/prometheus');

function promtool(args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: RULES_DIR, encoding: 'utf8' });
  expect(run.error, 'promtool is installed (.ci/run installs prometheus)').toBeUndefined();
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the example Prometheus alerts (deploy/prometheus)', () => {
  appTest(
    'pass promtool, fire in its unit tests, and name only metrics the server exports',
    async ({ startApp }) => {
      const checked = promtool(['check', 'rules', 'dea-alerts.yml']);
      expect(checked.output).toContain('SUCCESS: 12 rules found');
      expect(checked.status).toBe(0);
      const tested = promtool(['test', 'rules', 'dea-alerts.test.yml']);
      expect(tested.output).toContain('SUCCESS');
      expect(tested.status).toBe(0);

      const t = await startApp({ DEA_PUBLIC_METRICS: 'true' });
      const exported = (await t.app.inject({ url: '/metrics' })).body;
      const names = new Set(
        [...exported.matchAll(/^# TYPE (\S+) (\w+)$/gm)].flatMap(([, name = '', type]) =>
          type === 'histogram' ? [`${name}_count`, `${name}_sum`, `${name}_bucket`] : [name],
        ),
      );
      const used = [...readFileSync(join(RULES_DIR, 'dea-alerts.yml'), 'utf8').matchAll(/\b(dea_\w+)/g)].map(
        ([, name]) => name,
      );
      expect(used.length).toBeGreaterThan(5);
      for (const name of used) expect(names, `${name} is exported`).toContain(name);
      expect(exported).toMatch(/^dea_store_up 1$/m);
      expect(exported).toMatch(/^dea_store_ping_duration_seconds \d/m);
    },
  );
});
