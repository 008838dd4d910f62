import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { existsSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './start-server';

/** Debian's nginx (package nginx), as an operator puts it in front of the server. */
export const NGINX = '/usr/sbin/nginx';

export interface RunningProxy {
  /** https://127.0.0.1:<port>: TLS ends here, the server behind it is reached over plain HTTP. */
  baseUrl: string;
  stop: () => Promise<void>;
}

/** A self-signed certificate for 127.0.0.1, made by openssl, in `dir`. */
function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'proxy.crt');
  const key = join(dir, 'proxy.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/**
 * Resolves once nginx has written its pid file, which it does after it has bound its port; rejects
 * when it exits first.
 */
function listening(child: ChildProcess, dir: string, pidFile: string, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir);
    const done = (error?: Error) => {
      watcher.close();
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    };
    const onExit = (code: number | null) => done(new Error(`nginx exited (${code}):\n${output()}`));
    watcher.on('change', () => {
      if (existsSync(pidFile)) done();
    });
    child.once('exit', onExit);
    if (existsSync(pidFile)) done();
  });
}

/**
 * nginx terminating TLS in front of `upstream` (http://127.0.0.1:<port>), with the headers the
 * operator guide sets (docs/operator/postgresql.md): Host, X-Forwarded-For, X-Forwarded-Proto.
 * Run in the foreground on a free port, with its own prefix, configuration and certificate in a
 * folder of its own; stopped with the test.
 */
export async function startTlsProxy(upstream: string): Promise<RunningProxy> {
  const dir = await mkdtemp(join(tmpdir(), 'dea-nginx-'));
  await mkdir(join(dir, 'logs'));
  const { cert, key } = selfSignedCertificate(dir);
  const port = await freePort();
  const config = join(dir, 'nginx.conf');
  const pidFile = join(dir, 'nginx.pid');
  await writeFile(
    config,
    [
      // As root, the workers would switch to nobody, who may not enter the test's folder.
      ...(process.getuid?.() === 0 ? ['user root;'] : []),
      'worker_processes 1;',
      `pid ${pidFile};`,
      `error_log ${join(dir, 'logs/error.log')} warn;`,
      'events { worker_connections 64; }',
      'http {',
      `  access_log off;`,
      `  client_body_temp_path ${join(dir, 'client_body')};`,
      `  proxy_temp_path ${join(dir, 'proxy')};`,
      `  fastcgi_temp_path ${join(dir, 'fastcgi')};`,
      `  uwsgi_temp_path ${join(dir, 'uwsgi')};`,
      `  scgi_temp_path ${join(dir, 'scgi')};`,
      '  server {',
      `    listen 127.0.0.1:${port} ssl;`,
      `    ssl_certificate ${cert};`,
      `    ssl_certificate_key ${key};`,
      '    location / {',
      `      proxy_pass ${upstream};`,
      '      proxy_set_header Host $http_host;',
      '      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
      '      proxy_set_header X-Forwarded-Proto $scheme;',
      '    }',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  let output = '';
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', config, '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `https://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await listening(child, dir, pidFile, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, stop };
}
