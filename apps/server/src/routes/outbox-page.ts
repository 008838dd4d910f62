import { acceptedKeys } from '../crypto/secret-keys.js';
import { PAGE_BASE_PATH, type SendType } from '@dea/contract';
import type { FastifyPluginAsync } from 'fastify';
import { maskEmail, maskHandle, maskPhone } from '../domain/channels/masking.js';
import { openOutboxMessage } from '../delivery/outbox-provider.js';
import { escapeHtml } from '../delivery/html.js';
import { requireSession } from '../http/session-guard.js';
import { demoModeOf } from '../domain/settings/demo-mode.js';

export const OUTBOX_PAGE_PATH = `${PAGE_BASE_PATH}outbox`;
const SHOWN = 50;

function maskedRecipient(type: string, recipient: string): string {
  const masks: Record<SendType, (address: string) => string> = {
    sms: maskPhone,
    TELEPHONE: maskPhone,
    smtp: maskEmail,
    TWITTER: maskHandle,
  };
  return (masks[type as SendType] ?? (() => '***'))(recipient);
}

/**
 * The demo outbox: the signed-in user's own messages, newest first, so a newcomer on the demo
 * store sees the code that "was sent". Registered only in demo mode, and answered only while it
 * lasts: a store with any user besides the demo users has none (domain/settings/demo-mode.ts; elsewhere
 * the path is a 404). Recipients stay masked as everywhere in the browser; every value is escaped.
 */
export const outboxPage: FastifyPluginAsync = async (app) => {
  app.get(OUTBOX_PAGE_PATH, { onRequest: requireSession, schema: { hide: true } }, async (request, reply) => {
    const { store, keys } = app.services;
    // A user added since the start (dea user add) ends demo mode: the page is gone at once.
    if (!(await demoModeOf(app.services.config, store)).on) return reply.callNotFound();
    const userId = request.signedIn?.user.id ?? '';
    // Only types that go to the outbox now: once a real provider is configured for a type, its
    // earlier outbox messages are no demo any more and stay out of the browser.
    const { routes } = app.services.config.delivery;
    const demoTypes = new Set(
      Object.entries(routes).flatMap(([type, provider]) => (provider === 'outbox' ? [type] : [])),
    );
    const messages = (await store.outbox.list(SHOWN, userId)).filter((message) =>
      demoTypes.has(message.channelType),
    );
    const rows = messages.map((message) => {
      const content = openOutboxMessage(acceptedKeys(keys, 'seal'), message);
      const cells = [
        new Date(message.createdAt).toISOString(),
        message.channelType,
        maskedRecipient(message.channelType, content.recipient),
        content.subject,
        content.text,
      ];
      return `<tr>${cells.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`;
    });
    const html = [
      '<!doctype html>',
      '<html lang="en">',
      '<head><meta charset="utf-8"><title>Outbox (demo)</title></head>',
      '<body>',
      '<h1>Outbox (demo)</h1>',
      `<p>The last ${SHOWN} messages delivered to your channels by the demo outbox, newest first.</p>`,
      rows.length === 0
        ? '<p>No messages yet.</p>'
        : `<table><thead><tr><th>Time (UTC)</th><th>Channel</th><th>To</th><th>Subject</th><th>Text</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
      '</body>',
      '</html>',
    ].join('\n');
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  });
};
