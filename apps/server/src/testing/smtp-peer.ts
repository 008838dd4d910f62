import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseMail, type ParsedMail } from './mime.js';

export interface ReceivedMail extends ParsedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface SmtpPeer {
  port: number;
  received: ReceivedMail[];
  /** Makes the next recipients fail with this SMTP reply code (e.g. 550, 451). */
  rejectRecipients(code: number | undefined): void;
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1 and a random port that keeps what it receives; without TLS, or
 * with STARTTLS when given a key and certificate.
 */
export async function startSmtpPeer(
  options: { users?: Record<string, string>; tls?: { key: string; cert: string } } = {},
): Promise<SmtpPeer> {
  const received: ReceivedMail[] = [];
  let rejectCode: number | undefined;
  const server = new SMTPServer({
    secure: false,
    ...(options.tls && { key: options.tls.key, cert: options.tls.cert }),
    disabledCommands: [...(options.tls ? [] : ['STARTTLS']), ...(options.users ? [] : ['AUTH'])],
    authOptional: options.users === undefined,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      const ok = options.users?.[auth.username ?? ''] === auth.password;
      callback(ok ? null : new Error('invalid credentials'), ok ? { user: auth.username } : undefined);
    },
    onRcptTo(_address, _session, callback) {
      if (rejectCode === undefined) return callback();
      const error = Object.assign(new Error('recipient refused'), { responseCode: rejectCode });
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          ...parseMail(raw),
          raw,
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    rejectRecipients(code) {
      rejectCode = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
