import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { selfSignedCertificate } from '../testing/certificates.js';
import { appTest } from '../testing/fixtures.js';
import { startRsyslog, type Rsyslog, type SyslogTransportName } from '../testing/rsyslog.js';
import type { TestApp } from '../testing/test-app.js';
import { signatureOf } from '../net/standard-webhooks.js';
import { SD_ID } from './syslog-format.js';

const folders: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dea-audit-export-'));
  folders.push(dir);
  return dir;
}

let rsyslog: Rsyslog;
beforeAll(async () => {
  rsyslog = await startRsyslog();
});
afterAll(async () => {
  await rsyslog.stop();
  folders.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

/** One metric's value in what the app's /metrics serves, 0 when absent. */
async function metric(t: TestApp, line: RegExp): Promise<number> {
  const body = await t.services.metrics.registry.metrics();
  const match = body.split('\n').find((candidate) => line.test(candidate));
  return match === undefined ? 0 : Number(match.split(' ').at(-1));
}

const SECRET_BYTES = Buffer.alloc(32, 5);
const HTTPS_SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;

describe('audit export', () => {
  for (const transport of ['udp', 'tcp', 'tls'] as SyslogTransportName[]) {
    appTest(
      `ships every audit entry to Debian's rsyslog over ${transport} as RFC 5424 with structured data, never the code`,
      async ({ startApp }) => {
        const t = await startApp({
          DEA_AUDIT_SYSLOG: `${transport}://127.0.0.1:${rsyslog.ports[transport]}`,
          DEA_AUDIT_SYSLOG_CA_FILE: transport === 'tls' ? rsyslog.caFile : '',
          DEA_AUDIT_SYSLOG_FACILITY: 'local3',
        });
        const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
        const code = await t.codeOnScreen(user);
        const [issued] = await t.services.store.audit.list({ userId: user.id, event: 'code.issued' });
        if (issued === undefined) throw new Error('no code.issued entry');
        // Arrives as it happens: the request did not wait for it, the receiver has it a moment later.
        await expect
          .poll(() => rsyslog.received(transport).filter((line) => line.includes(issued.id)), {
            timeout: 5000,
          })
          .toHaveLength(1);
        const line = rsyslog.received(transport).find((candidate) => candidate.includes(issued.id)) ?? '';
        const [pri, host, app, procId, msgId, structured, ...message] = line.split('|');
        // local3 (19) * 8 + informational (6)
        expect(pri).toBe(String(19 * 8 + 6));
        expect(host).not.toBe('');
        expect(app).toBe('dea');
        expect(procId).toBe(String(process.pid));
        expect(msgId).toBe('code.issued');
        expect(structured).toBe(
          `[${SD_ID} id="${issued.id}" event="code.issued" userId="${user.id}" actor="${issued.actor}" clientAddress="${issued.clientAddress}"]`,
        );
        // The message is the whole entry as JSON: the same as the store's audit log.
        const record = JSON.parse(message.join('|')) as Record<string, unknown>;
        expect(record).toMatchObject({
          id: issued.id,
          at: new Date(issued.at).toISOString(),
          event: 'code.issued',
          userId: user.id,
          details: issued.details,
        });
        expect(rsyslog.received(transport).join('\n')).not.toContain(code);
        // A failure is a warning (4): local3 * 8 + 4, and a value with " \ ] is escaped.
        await t.services.store.audit.append(
          { event: 'signin.failed', actor: 'unknown:a"b\\c]d', details: { name: 'Zoë' } },
          t.clock.now(),
        );
        await expect
          .poll(() => rsyslog.received(transport).find((candidate) => candidate.includes('unknown:a')), {
            timeout: 5000,
          })
          .toMatch(
            new RegExp(`^${19 * 8 + 4}\\|.*actor="unknown:a\\\\"b\\\\\\\\c\\\\\\]d"\\].*"Zo\\\\u00eb"`),
          );
        expect(
          await metric(t, /^dea_audit_export_entries_total\{destination="syslog",outcome="sent"\}/),
        ).toBeGreaterThanOrEqual(2);
      },
    );
  }

  appTest(
    'keeps entries while the syslog server is down, never slowing a request, and sends them all once it is up',
    async ({ startApp }) => {
      // A port nobody listens on yet.
      const listener: Server = createTcpServer();
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const port = (listener.address() as { port: number }).port;
      await new Promise((resolve) => listener.close(resolve));
      const t = await startApp({ DEA_AUDIT_SYSLOG: `tcp://127.0.0.1:${port}` });
      const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
      await t.codeOnScreen(user);
      await expect
        .poll(() => metric(t, /^dea_audit_export_failures_total\{destination="syslog"\}/), { timeout: 5000 })
        .toBeGreaterThan(0);
      // With the destination failing, a request and the entries it writes end without waiting on it:
      // every one is still waiting when they have (a request held until it was sent would hang
      // until the receiver is up, below). How fast they are is for benchmarks, not the wall clock.
      await t.codeOnScreen(user);
      for (let index = 0; index < 20; index += 1) {
        await t.services.store.audit.append({ event: 'system.start', details: { index } }, t.clock.now());
      }
      await expect
        .poll(() => metric(t, /^dea_audit_export_failures_total\{destination="syslog"\}/), { timeout: 5000 })
        .toBeGreaterThan(0);
      await expect
        .poll(() => metric(t, /^dea_audit_export_waiting\{destination="syslog"\}/), { timeout: 5000 })
        .toBeGreaterThanOrEqual(21);
      await expect
        .poll(() => metric(t, /^dea_audit_export_lag_seconds\{destination="syslog"\}/), { timeout: 5000 })
        .toBeGreaterThan(0);

      // The receiver comes up on that port: everything waiting arrives, in order, once.
      const frames: string[] = [];
      const receiver = createTcpServer((socket) => {
        let buffer = '';
        socket.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          for (;;) {
            const space = buffer.indexOf(' ');
            const length = Number(buffer.slice(0, space));
            if (space < 0 || Buffer.byteLength(buffer.slice(space + 1)) < length) break;
            frames.push(buffer.slice(space + 1, space + 1 + length));
            buffer = buffer.slice(space + 1 + length);
          }
        });
      });
      await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
      try {
        await expect.poll(() => frames.length, { timeout: 40_000 }).toBeGreaterThanOrEqual(21);
        const indexes = frames
          .filter((frame) => frame.includes(' system.start '))
          .map(
            (frame) =>
              (JSON.parse(frame.slice(frame.indexOf('] ') + 2)) as { details: { index: number } }).details
                .index,
          );
        expect(indexes).toEqual(Array.from({ length: 20 }, (_, index) => index));
        expect(await metric(t, /^dea_audit_export_waiting\{destination="syslog"\}/)).toBe(0);
        expect(await metric(t, /^dea_audit_export_lag_seconds\{destination="syslog"\}/)).toBe(0);
      } finally {
        await t.close();
        await new Promise((resolve) => receiver.close(resolve));
      }
    },
    60_000,
  );

  appTest(
    "sends what dea writes beside the running server, with each entry's place and chain value",
    async ({ startApp }) => {
      const file = join(folder(), 'audit.jsonl');
      const t = await startApp({ DEA_AUDIT_FILE: file });
      const lines = (): { event: string; seq: number; chain: string; details: Record<string, unknown> }[] => {
        try {
          return readFileSync(file, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map(
              (line) =>
                JSON.parse(line) as {
                  event: string;
                  seq: number;
                  chain: string;
                  details: Record<string, unknown>;
                },
            );
        } catch {
          return [];
        }
      };
      // dea writes to the store only: the server's round finds the entries there.
      await t.services.store.audit.append(
        { event: 'system.start', details: { by: 'another writer' } },
        t.clock.now(),
      );
      const user = await t.createUser({});
      expect(await t.dea(['user', 'update', user.username, '--full-name', 'Changed By Dea'])).toMatchObject({
        code: 0,
      });
      await expect
        .poll(() => lines().some((line) => line.event === 'user.updated'), { timeout: 10_000 })
        .toBe(true);
      const seqs = lines().map((line) => line.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(lines().every((line) => /^[\w-]{43}$/.test(line.chain))).toBe(true);
    },
  );

  appTest(
    'posts signed batches to an HTTPS endpoint and retries one it refused, each entry once',
    async ({ startApp }) => {
      const dir = folder();
      const { cert, key } = selfSignedCertificate(dir, 'receiver');
      const batches: { id: string; entries: { id: string; event: string }[] }[] = [];
      let refuse = 2;
      const server = createHttpsServer(
        { cert: readFileSync(cert), key: readFileSync(key) },
        (request, response) => {
          let body = '';
          request.on('data', (chunk: Buffer) => (body += chunk.toString()));
          request.on('end', () => {
            const id = String(request.headers['webhook-id']);
            const timestamp = Number(request.headers['webhook-timestamp']);
            expect(request.headers['webhook-signature']).toBe(signatureOf(SECRET_BYTES, id, timestamp, body));
            if (refuse > 0) {
              refuse -= 1;
              response.writeHead(503).end();
              return;
            }
            batches.push({ id, ...(JSON.parse(body) as { entries: { id: string; event: string }[] }) });
            response.writeHead(204).end();
          });
        },
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const t = await startApp({
          DEA_AUDIT_HTTPS_URL: `https://127.0.0.1:${(server.address() as { port: number }).port}/audit`,
          DEA_AUDIT_HTTPS_SECRET: HTTPS_SECRET,
          DEA_AUDIT_HTTPS_CA_FILE: cert,
          DEA_AUDIT_HTTPS_BATCH_SIZE: '5',
          DEA_AUDIT_HTTPS_INTERVAL_MS: '20',
        });
        await Promise.all(
          Array.from({ length: 12 }, (_, index) =>
            t.services.store.audit.append({ event: 'system.start', details: { index } }, t.clock.now()),
          ),
        );
        await expect
          .poll(() => batches.flatMap((batch) => batch.entries).length, { timeout: 10_000 })
          .toBe(12);
        const ids = batches.flatMap((batch) => batch.entries.map((entry) => entry.id));
        expect(new Set(ids).size).toBe(12);
        expect(batches.every((batch) => batch.entries.length <= 5)).toBe(true);
        const stored = await t.services.store.audit.list({ event: 'system.start', limit: 100 });
        expect(new Set(ids)).toEqual(new Set(stored.map((entry) => entry.id)));
        expect(await metric(t, /^dea_audit_export_failures_total\{destination="https"\}/)).toBe(2);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );

  appTest(
    'appends JSON lines to DEA_AUDIT_FILE and opens a new file after rotation',
    async ({ startApp }) => {
      const file = join(folder(), 'audit.jsonl');
      const t = await startApp({ DEA_AUDIT_FILE: file });
      await t.services.store.audit.append({ event: 'system.start', details: { n: 1 } }, t.clock.now());
      await expect
        .poll(() => readFileSync(file, 'utf8').split('\n').filter(Boolean).length, { timeout: 5000 })
        .toBe(1);
      renameSync(file, `${file}.1`);
      t.services.auditExport?.reopen();
      await t.services.store.audit.append({ event: 'system.start', details: { n: 2 } }, t.clock.now());
      await expect
        .poll(
          () => {
            try {
              return readFileSync(file, 'utf8');
            } catch {
              return '';
            }
          },
          { timeout: 5000 },
        )
        .toContain('"n":2');
      const [line] = readFileSync(`${file}.1`, 'utf8').split('\n');
      expect(JSON.parse(line ?? '')).toMatchObject({ event: 'system.start', details: { n: 1 } });
    },
  );
});
