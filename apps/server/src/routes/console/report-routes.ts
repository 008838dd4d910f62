import { ConsoleReportQuery, ConsoleReports, ErrorEnvelope } from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { consoleReports, reportsCsv } from '../../domain/reports/reports.js';
import { ok } from '../../http/envelope.js';
import { guardedCaller } from '../../http/console-guard.js';
import { CONSOLE_ACCESS } from '../../domain/console/console-access.js';
import { documented } from '../../http/route-docs.js';

/** The reports dashboard for administrators and auditors (domain/reports/reports.ts), and each report as CSV. */
export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, config, now } = app.services;
  const defaults = () => ({ timeZone: config.timeZone, now: now() });

  app.get(
    '/reports',
    {
      config: { console: CONSOLE_ACCESS.readReports },
      schema: {
        querystring: ConsoleReportQuery,
        ...documented({
          summary:
            'Codes issued, used, expired and revoked, lockouts, sign-in failures and deliveries per day',
          security: 'console',
          result: ConsoleReports,
        }),
      },
    },
    async (request) => ok(await consoleReports(store, guardedCaller(request), request.query, defaults())),
  );

  const csvDocs = documented({
    summary: 'The same counts as CSV (one report with metric)',
    security: 'console',
    result: ConsoleReports,
  });
  app.get(
    '/reports.csv',
    {
      config: { console: CONSOLE_ACCESS.readReports },
      schema: {
        ...csvDocs,
        querystring: ConsoleReportQuery,
        response: {
          ...csvDocs.response,
          200: {
            description: 'CSV with a header line: metric, by, key, day, count',
            content: {
              'text/csv': { schema: { type: 'string' } },
              'application/json': { schema: ErrorEnvelope },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { metric } = request.query;
      const reports = await consoleReports(store, guardedCaller(request), request.query, defaults());
      const name = `dea-report-${metric ?? 'all'}-${reports.from}-${reports.to}.csv`;
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(reportsCsv(reports, metric));
    },
  );
};
