import { createTransport } from 'nodemailer';
import { withoutControlCharacters } from './control-characters.js';
import type { SmtpSettings } from './delivery-config.js';
import type { DeliveryProvider, DeliveryResult } from './delivery.js';
import { htmlDocument, paragraphs } from './html.js';

/** One plain address: no display name, no list, nothing that could add a recipient or a header. */
const SINGLE_ADDRESS = /^[^\s@<>(),;:"\\[\]]+@[^\s@<>(),;:"\\[\]]+\.[^\s@<>(),;:"\\[\]]+$/;

/** Failures of the connection rather than refusals of the message: worth another attempt. */
const CONNECTION_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ECONNRESET',
  'ECONNREFUSED',
]);

interface SmtpError {
  code?: unknown;
  originalCode?: unknown;
  responseCode?: unknown;
  permanent?: unknown;
}

/** The reason names error codes and the SMTP reply code only: the reply text may quote the address. */
export function smtpFailure(error: unknown): DeliveryResult & { ok: false } {
  const { code, originalCode, responseCode, permanent } = (error ?? {}) as SmtpError;
  const name = typeof code === 'string' ? code : 'error';
  const detail = [
    typeof originalCode === 'string' ? originalCode : '',
    typeof responseCode === 'number' ? String(responseCode) : '',
  ]
    .filter(Boolean)
    .join(' ');
  const transient =
    typeof permanent === 'boolean'
      ? !permanent
      : typeof responseCode === 'number'
        ? responseCode >= 400 && responseCode < 500
        : CONNECTION_CODES.has(name);
  return { ok: false, transient, reason: `SMTP ${name}${detail === '' ? '' : ` ${detail}`}` };
}

function domainOf(from: string): string {
  const address = /<([^>]+)>\s*$/.exec(from)?.[1] ?? from;
  return address.slice(address.lastIndexOf('@') + 1).trim() || 'localhost';
}

/**
 * E-mail through an SMTP server (nodemailer). The recipient must be one plain address and the
 * subject loses any line break before nodemailer encodes the headers, so no value can add a
 * header or a recipient. The idempotency key is the Message-ID: every attempt of one message
 * carries the same one, so mail systems and clients recognise a repeated delivery. A transport
 * per message keeps an attempt that ran out of time from holding a connection open.
 */
export function smtpProvider(settings: SmtpSettings, defaultTimeoutMs: number): DeliveryProvider {
  const messageIdDomain = domainOf(settings.from);
  return {
    name: 'smtp',
    async deliver(message, options = {}) {
      const to = message.recipient.trim();
      if (!SINGLE_ADDRESS.test(to))
        return { ok: false, transient: false, reason: 'recipient is not one e-mail address' };
      const timeout = options.timeoutMs ?? defaultTimeoutMs;
      const transport = createTransport({
        host: settings.host,
        port: settings.port,
        secure: settings.tls === 'tls',
        requireTLS: settings.tls === 'starttls',
        ignoreTLS: settings.tls === 'none',
        ...(settings.user !== '' && { auth: { user: settings.user, pass: settings.password } }),
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
        disableFileAccess: true,
        disableUrlAccess: true,
        ...(settings.ca !== undefined && { tls: { ca: settings.ca } }),
      });
      const abort = (): void => transport.close();
      options.signal?.addEventListener('abort', abort, { once: true });
      try {
        const info = await transport.sendMail({
          from: settings.from,
          to,
          subject: withoutControlCharacters(message.subject).trim(),
          text: message.text,
          html: message.html ?? htmlDocument(message.language ?? 'en', paragraphs(message.text)),
          messageId: `<${message.idempotencyKey.replace(/[^A-Za-z0-9._-]/g, '')}@${messageIdDomain}>`,
        });
        return { ok: true, providerMessageId: info.messageId };
      } catch (error) {
        if (options.signal?.aborted) return { ok: false, transient: true, reason: 'timeout' };
        return smtpFailure(error);
      } finally {
        options.signal?.removeEventListener('abort', abort);
        transport.close();
      }
    },
  };
}
