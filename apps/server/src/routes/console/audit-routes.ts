import { Readable } from 'node:stream';
import { ConsoleAuditEvents, ConsoleAuditPage, ConsoleAuditQuery, ErrorEnvelope } from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AUDIT_EVENTS } from '../../domain/audit/audit-events.js';
import { ok } from '../../http/envelope.js';
import { guardedCaller } from '../../http/console-guard.js';
import { CONSOLE_ACCESS } from '../../domain/console/console-access.js';
import { documented } from '../../http/route-docs.js';

/** The audit log for administrators and auditors: filtered pages, and a CSV export. */
export const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { auditView } = app.services;

  app.get(
    '/audit',
    {
      config: { console: CONSOLE_ACCESS.readAudit },
      schema: {
        querystring: ConsoleAuditQuery,
        ...documented({
          summary: 'The audit log, newest first, filtered, a page at a time',
          security: 'console',
          result: ConsoleAuditPage,
        }),
      },
    },
    async (request) => ok(await auditView.page(guardedCaller(request), request.query)),
  );

  const events = {
    events: Object.entries(AUDIT_EVENTS)
      .map(([name, description]) => ({ name, description }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
  app.get(
    '/audit/events',
    {
      config: { console: CONSOLE_ACCESS.readAudit },
      schema: documented({
        summary: 'The events the audit log can hold, with what each records (the filter offers them)',
        security: 'console',
        result: ConsoleAuditEvents,
      }),
    },
    async () => ok(events),
  );

  const csvDocs = documented({
    summary: 'The same entries as CSV, every one of them, streamed',
    security: 'console',
    result: ConsoleAuditPage,
  });
  app.get(
    '/audit.csv',
    {
      config: { console: CONSOLE_ACCESS.readAudit },
      schema: {
        ...csvDocs,
        querystring: ConsoleAuditQuery,
        response: {
          ...csvDocs.response,
          200: {
            description:
              'CSV with a header line: at, event, username, userId, actor, clientAddress, details (JSON)',
            content: {
              'text/csv': { schema: { type: 'string' } },
              'application/json': { schema: ErrorEnvelope },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const lines = await auditView.csv(guardedCaller(request), request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="dea-audit.csv"')
        .send(Readable.from(lines));
    },
  );
};
