import { chmodSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from './testing/certificates.js';
import { exitOf, startServerProcess } from './testing/processes.js';

const dirs: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dea-listeners-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A GET over TLS (certificate not checked: self-signed) answering the status and the peer's fingerprint. */
function getOverTls(url: string): Promise<{ status: number; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { rejectUnauthorized: false, agent: false }, (response) => {
      const fingerprint = (response.socket as TLSSocket).getPeerCertificate().fingerprint256;
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, fingerprint }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A raw TLS connection kept open, on which requests are written by hand (keep-alive). */
async function openConnection(
  port: number,
): Promise<{ socket: TLSSocket; get(path: string): Promise<string> }> {
  const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  return {
    socket,
    get: (path) =>
      new Promise((resolve) => {
        socket.once('data', (chunk: Buffer) => resolve(chunk.toString().split('\r\n')[0] ?? ''));
        socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
      }),
  };
}

describe('the server process: native TLS and a management port', () => {
  it('serves HTTPS, and on SIGHUP takes a new certificate for new connections while old ones stay open', async () => {
    const dir = folder();
    const first = selfSignedCertificate(dir, 'first');
    const second = selfSignedCertificate(dir, 'second');
    const cert = join(dir, 'server.crt');
    const key = join(dir, 'server.key');
    renameSync(first.cert, cert);
    renameSync(first.key, key);
    const server = await startServerProcess({
      DEA_DATA_DIR: folder(),
      DEA_TLS_CERT_FILE: cert,
      DEA_TLS_KEY_FILE: key,
      DEA_LOG_LEVEL: 'info',
    });
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/dea\/$/);
      const port = Number(new URL(server.url).port);
      expect(await getOverTls(`${server.base}/healthz`)).toEqual({
        status: 200,
        fingerprint: first.fingerprint,
      });
      const kept = await openConnection(port);
      expect(await kept.get('/healthz')).toBe('HTTP/1.1 200 OK');

      // A broken pair is refused with its cause; the running certificate stays.
      writeFileSync(key, 'not a key');
      server.child.kill('SIGHUP');
      await expect.poll(() => server.output()).toContain('the previous certificate stays in use');
      expect(server.output()).toContain('DEA_TLS_KEY_FILE');
      expect((await getOverTls(`${server.base}/healthz`)).fingerprint).toBe(first.fingerprint);

      renameSync(second.cert, cert);
      renameSync(second.key, key);
      server.child.kill('SIGHUP');
      await expect.poll(() => server.output()).toContain('SIGHUP: TLS certificate and key reloaded');
      expect(await getOverTls(`${server.base}/healthz`)).toEqual({
        status: 200,
        fingerprint: second.fingerprint,
      });
      // The connection opened before the reload was not dropped and still answers.
      expect(await kept.get('/readyz')).toBe('HTTP/1.1 200 OK');
      kept.socket.destroy();
      // Cookies over native TLS are the __Host- ones, with HSTS.
      const page = await new Promise<string[]>((resolve, reject) => {
        httpsRequest(`${server.base}/dea/`, { rejectUnauthorized: false, agent: false }, (response) => {
          response.resume();
          resolve([String(response.headers['strict-transport-security'])]);
        })
          .on('error', reject)
          .end();
      });
      expect(page).toEqual(['max-age=31536000']);
    } finally {
      const exited = exitOf(server.child);
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('refuses to start on a certificate it cannot use, naming the setting', async () => {
    const dir = folder();
    const { cert } = selfSignedCertificate(dir, 'only');
    await expect(
      startServerProcess({
        DEA_DATA_DIR: folder(),
        DEA_TLS_CERT_FILE: cert,
        DEA_TLS_KEY_FILE: join(dir, 'missing.key'),
      }),
    ).rejects.toThrow(/DEA_TLS_KEY_FILE: cannot read .*missing\.key \(ENOENT\)/);
    const { cert: openCert, key: openKey } = selfSignedCertificate(dir, 'open');
    chmodSync(openKey, 0o640);
    await expect(
      startServerProcess({ DEA_DATA_DIR: folder(), DEA_TLS_CERT_FILE: openCert, DEA_TLS_KEY_FILE: openKey }),
    ).rejects.toThrow(
      `DEA_TLS_KEY_FILE: ${openKey} may be read by others than its owner (mode 0640): refused, as ssh refuses such a key; run chmod 600 ${openKey}`,
    );
    await expect(startServerProcess({ DEA_DATA_DIR: folder(), DEA_TLS_CERT_FILE: cert })).rejects.toThrow(
      /DEA_TLS_CERT_FILE and DEA_TLS_KEY_FILE: set both/,
    );
  });

  it('moves /healthz, /readyz and /metrics to DEA_MANAGEMENT_PORT, which follows the drain', async () => {
    const server = await startServerProcess({
      DEA_DATA_DIR: folder(),
      DEA_MANAGEMENT_PORT: '0',
      DEA_LOG_LEVEL: 'info',
      DEA_SHUTDOWN_DRAIN_SECONDS: '2',
    });
    const match = /"managementUrl":"(http:\/\/[^"]+)"/.exec(server.output());
    const management = match?.[1] ?? '';
    expect(management).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect((await fetch(`${server.base}${path}`)).status, path).toBe(404);
      expect((await fetch(`${management}${path}`)).status, path).toBe(200);
    }
    expect(await (await fetch(`${management}/metrics`)).text()).toContain(
      'dea_http_request_duration_seconds',
    );
    // The page and its API stay where they were; the management port serves nothing else.
    expect((await fetch(`${server.base}/dea/api/resourceFile/getLanguageList`)).status).toBe(200);
    expect((await fetch(`${management}/dea/`)).status).toBe(404);
    // Probes are not logged per request. The lines are written in order as the answers go out: once
    // the last logged request's line is there, every earlier one is too.
    const lines = () => server.output().split('\n');
    await expect
      .poll(() => lines().some((line) => line.includes('"path":"/dea/api/resourceFile/getLanguageList"')))
      .toBe(true);
    const probes = lines().filter((line) => line.includes('"path":"/readyz"'));
    expect(probes).toHaveLength(1);
    expect(probes[0]).toContain('"statusCode":404');

    const exited = exitOf(server.child);
    server.child.kill('SIGTERM');
    await expect.poll(async () => (await fetch(`${management}/readyz`)).status, { timeout: 1500 }).toBe(503);
    expect(await exited).toBe(0);
  });
});
