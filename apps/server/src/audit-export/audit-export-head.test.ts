import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { exportedHeadOf, readAnchor } from '../domain/audit/audit-trail.js';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { API } from '../testing/api-bodies.js';
import { selfSignedCertificate } from '../testing/certificates.js';
import { appTest } from '../testing/fixtures.js';
import { startRsyslog, type Rsyslog } from '../testing/rsyslog.js';
import { execRaw } from '../testing/store-dump.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp } from '../testing/test-app.js';
import type { AuditRecord } from '../domain/ports/audit-destination.js';

/**
 * Each copy of the audit trail the export sends (syslog, HTTPS, the file) carries the trail's head,
 * signed under the secret's chain key, on the last record of each batch (ADR 0032): `dea audit
 * verify --anchor` holds the stored trail against it, so that its end cannot be cut unseen by
 * someone who can write the database but holds no secret.
 */
const folders: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dea-audit-head-'));
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

const fileLines = (file: string): AuditRecord[] => {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditRecord);
  } catch {
    return [];
  }
};

/** Codes issued and verified (right, then wrong up to the lock): on PostgreSQL inside its functions. */
async function codesIssuedAndVerified(t: TestApp): Promise<void> {
  const { key } = await createServiceKey(
    t.services.store,
    t.services.keys.serviceKey,
    'vpn',
    ['verify'],
    t.clock.now(),
  );
  const verify = (userId: string, code: string) =>
    t.call(`${API}/tempPass/verify`, { userId, code }, undefined, { authorization: `Bearer ${key}` });
  const user = await t.createUser({ policy: { enableECode: true, emergencyCodeDelivery: 'Display' } });
  const code = await t.codeOnScreen(user);
  expect((await verify(user.id, code)).json()).toMatchObject({ result: { valid: true } });
  await t.codeOnScreen(user);
  await verify(user.id, 'WRONG23456');
  await verify(user.id, 'WRONG23457');
  await verify(user.id, 'WRONG23458');
}

describe.each(STORE_KINDS)('the exported head of the audit trail on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'the audit file carries the signed head; dea audit verify --anchor holds the trail against it, and a cut end fails with or without it',
    async ({ startApp }) => {
      const file = join(folder(), 'audit.jsonl');
      const t = await startApp({ DEA_AUDIT_FILE: file, DEA_VERIFY_MAX_FAILURES: '2' });
      await codesIssuedAndVerified(t);
      const { store } = t.services;
      await expect.poll(() => store.auditTrail.unsealedCount(), { timeout: 10_000 }).toBe(0);
      const last = await store.auditTrail.lastSeq();
      await expect.poll(() => fileLines(file).at(-1)?.seq, { timeout: 10_000 }).toBe(last);
      // Every entry the product wrote was stamped and sealed, those of its database functions too.
      expect(await store.auditTrail.refusedCount()).toBe(0);
      const events = (await store.auditTrail.sealedAfter(0, 1000)).map(({ event }) => event);
      expect(events).toEqual(
        expect.arrayContaining([
          'code.issued',
          'code.used',
          'code.verify_failed',
          'code.verify_lockout',
          'code.verify_locked',
        ]),
      );
      const lines = fileLines(file);
      expect(lines.at(-1)?.head).toMatchObject({
        seq: last,
        chain: lines.at(-1)?.chain,
        key: t.services.keys.fingerprint,
      });
      expect(readAnchor(readFileSync(file, 'utf8'), t.services.keys).anchor?.seq).toBe(last);

      const verified = await t.dea(['audit', 'verify', '--anchor', file]);
      expect(verified).toMatchObject({ code: 0, err: '' });
      expect(verified.out).toContain(`Its end holds the exported copy's signed head of`);
      expect(verified.out).toContain(`(#${last})`);
      const alone = await t.dea(['audit', 'verify']);
      expect(alone.code).toBe(0);
      expect(alone.out).toContain('Not proven without an exported copy (--anchor)');
      // An older copy (as the export wrote it after its first batch) proves the trail up to its head only.
      const older = join(folder(), 'older.jsonl');
      const [, second] = await store.auditTrail.sealedAfter(0, 2);
      if (second === undefined) throw new Error('fewer than two entries');
      const olderHead = second.seq;
      writeFileSync(
        older,
        `${JSON.stringify({ seq: second.seq, head: exportedHeadOf(t.services.keys, second, t.clock.now()) })}\n`,
      );
      expect((await t.dea(['audit', 'verify', '--anchor', older])).out).toContain(
        `entries #${olderHead + 1} to #${last} are newer than the copy, and not proven by it`,
      );

      const unreadable = await t.dea(['audit', 'verify', '--anchor', join(folder(), 'none.jsonl')]);
      expect(unreadable).toMatchObject({
        code: 2,
        err: expect.stringContaining('cannot read it (ENOENT)') as unknown,
      });
      // A head changed in the copy is not taken; a copy without any is no anchor.
      const forged = join(folder(), 'forged.jsonl');
      const lastLine = readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? '';
      writeFileSync(forged, lastLine.replace(`"head":{"seq":${last},`, `"head":{"seq":${last + 5},`));
      expect(await t.dea(['audit', 'verify', '--anchor', forged])).toMatchObject({
        code: 1,
        err: expect.stringContaining(
          'holds no head signed under the configured secret (heads found: 1 whose signature does not match',
        ) as unknown,
      });

      // The last two entries cut away with the head.
      await execRaw(t.testStore, `delete from audit_log where seq >= $1`, [last - 1]);
      await execRaw(t.testStore, `delete from audit_chain where name = 'head'`);
      const cut = await t.dea(['audit', 'verify']);
      expect(cut.code).toBe(1);
      expect(cut.err).toMatch(new RegExp(`entry #${last - 1}: the head of the trail is missing`));
      const anchored = await t.dea(['audit', 'verify', '--anchor', file]);
      expect(anchored.code).toBe(1);
      expect(anchored.err).toMatch(/does not verify/);
    },
  );

  appTest(
    'a trail rolled back to an earlier head verifies alone, and fails against the exported copy',
    async ({ startApp }) => {
      const file = join(folder(), 'audit.jsonl');
      const t = await startApp({ DEA_AUDIT_FILE: file });
      const { store } = t.services;
      for (let index = 0; index < 3; index += 1)
        await store.audit.append({ event: 'system.start', details: { index } }, t.clock.now());
      // Sealed, and the head signed over the last of them: a seal places the entries, then moves the head.
      const headOverAll = async () => {
        if ((await store.auditTrail.unsealedCount()) > 0) return undefined;
        const head = (await store.auditTrail.marks()).find((mark) => mark.name === 'head');
        const sealed = await store.auditTrail.sealedAfter(0, 100);
        return head !== undefined && head.seq === sealed.at(-1)?.seq ? head : undefined;
      };
      await expect.poll(headOverAll, { timeout: 10_000 }).toBeDefined();
      const head = await headOverAll();
      if (head === undefined) throw new Error('no head');
      for (let index = 3; index < 6; index += 1)
        await store.audit.append({ event: 'system.start', details: { index } }, t.clock.now());
      const last = head.seq + 3;
      await expect.poll(() => fileLines(file).at(-1)?.seq, { timeout: 10_000 }).toBe(last);
      await execRaw(t.testStore, `delete from audit_log where seq > $1`, [head.seq]);
      await execRaw(
        t.testStore,
        `update audit_chain set seq = $1, chain = $2, at = $3, mac = $4 where name = 'head'`,
        [head.seq, head.chain, head.at, head.mac],
      );
      const alone = await t.dea(['audit', 'verify']);
      expect(alone.code).toBe(0);
      expect(alone.out).toContain('Not proven without an exported copy');
      const anchored = await t.dea(['audit', 'verify', '--anchor', file]);
      expect(anchored.code).toBe(1);
      expect(anchored.err).toContain(
        `the trail ends at #${head.seq}, but the exported copy's signed head of`,
      );
      expect(anchored.err).toContain(`reached #${last}`);
    },
  );
});

describe('the exported head over syslog and HTTPS', () => {
  appTest(
    'each batch sent to syslog ends with a record that carries the signed head',
    async ({ startApp }) => {
      const t = await startApp({ DEA_AUDIT_SYSLOG: `tcp://127.0.0.1:${rsyslog.ports.tcp}` });
      const { store } = t.services;
      for (let index = 0; index < 4; index += 1)
        await store.audit.append({ event: 'system.start', details: { index } }, t.clock.now());
      await expect.poll(() => store.auditTrail.unsealedCount(), { timeout: 10_000 }).toBe(0);
      const last = await store.auditTrail.lastSeq();
      const ours = () => rsyslog.received('tcp').filter((line) => line.includes(t.services.keys.fingerprint));
      await expect
        .poll(() => readAnchor(ours().join('\n'), t.services.keys).anchor?.seq, { timeout: 10_000 })
        .toBe(last);
    },
  );

  appTest(
    'each batch posted to the HTTPS endpoint ends with a record that carries the signed head',
    async ({ startApp }) => {
      const dir = folder();
      const { cert, key } = selfSignedCertificate(dir, 'receiver');
      const bodies: string[] = [];
      const server = createHttpsServer(
        { cert: readFileSync(cert), key: readFileSync(key) },
        (request, response) => {
          let body = '';
          request.on('data', (chunk: Buffer) => (body += chunk.toString()));
          request.on('end', () => {
            bodies.push(body);
            response.writeHead(204).end();
          });
        },
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const t = await startApp({
          DEA_AUDIT_HTTPS_URL: `https://127.0.0.1:${(server.address() as { port: number }).port}/audit`,
          DEA_AUDIT_HTTPS_SECRET: `whsec_${Buffer.alloc(32, 5).toString('base64')}`,
          DEA_AUDIT_HTTPS_CA_FILE: cert,
          DEA_AUDIT_HTTPS_BATCH_SIZE: '3',
          DEA_AUDIT_HTTPS_INTERVAL_MS: '20',
        });
        const { store } = t.services;
        for (let index = 0; index < 7; index += 1)
          await store.audit.append({ event: 'system.start', details: { index } }, t.clock.now());
        await expect.poll(() => store.auditTrail.unsealedCount(), { timeout: 10_000 }).toBe(0);
        const last = await store.auditTrail.lastSeq();
        await expect
          .poll(() => readAnchor(bodies.join('\n'), t.services.keys).anchor?.seq, { timeout: 10_000 })
          .toBe(last);
        for (const body of bodies) {
          const { entries } = JSON.parse(body) as { entries: AuditRecord[] };
          // The last record of each batch, and only it, carries the head of what the batch holds.
          expect(entries.map((entry) => entry.head?.seq)).toEqual(
            entries.map((entry, index) => (index === entries.length - 1 ? entry.seq : undefined)),
          );
        }
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );
});
