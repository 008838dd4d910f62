import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate } from './certificates.js';
import { freePort, freeUdpPort } from './free-port.js';

export type SyslogTransportName = 'udp' | 'tcp' | 'tls';

export interface Rsyslog {
  ports: Record<SyslogTransportName, number>;
  /** PEM of the self-signed certificate of the TLS input (for DEA_AUDIT_SYSLOG_CA_FILE). */
  caFile: string;
  /** What arrived on an input, one line per message: pri|hostname|app-name|procid|msgid|structured-data|msg. */
  received(transport: SyslogTransportName): string[];
  stop(): Promise<void>;
}

/** Whether something accepts TCP connections on 127.0.0.1:port (a connection, never a bind). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** What rsyslogd says when another process took a port between freePort() and its bind. */
const PORT_TAKEN = /Address already in use|Could not create (tcp|udp) listener/;

/** How many times a start whose port was taken is tried again with other ports. */
const START_ATTEMPTS = 5;

/**
 * Debian's rsyslogd in the foreground, as a syslog server of the tests: one UDP, one TCP and one
 * TLS input (GnuTLS, a certificate made by openssl for 127.0.0.1), each written to a file of its
 * own with the parsed RFC 5424 fields. Ready once both TCP inputs accept a connection; a port that
 * another process took before rsyslogd bound it (free when asked, taken a moment later) is a start
 * tried again with new ports.
 */
export async function startRsyslog(): Promise<Rsyslog> {
  const dir = mkdtempSync(join(tmpdir(), 'dea-rsyslog-'));
  const { cert, key } = selfSignedCertificate(dir, 'rsyslog');
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startIn(dir, cert, key);
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt >= START_ATTEMPTS) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

class PortTaken extends Error {}

async function startIn(dir: string, cert: string, key: string): Promise<Rsyslog> {
  const ports = { udp: await freeUdpPort(), tcp: await freePort(), tls: await freePort() };
  const rulesets = (['udp', 'tcp', 'tls'] as const)
    .map(
      (name) =>
        `ruleset(name="${name}") { action(type="omfile" file="${join(dir, `${name}.log`)}" template="fields" flushOnTXEnd="on" asyncWriting="off") }`,
    )
    .join('\n');
  writeFileSync(
    join(dir, 'rsyslog.conf'),
    `global(workDirectory="${dir}" defaultNetstreamDriverCAFile="${cert}" defaultNetstreamDriverCertFile="${cert}" defaultNetstreamDriverKeyFile="${key}")
module(load="imudp")
module(load="imtcp")
template(name="fields" type="string" string="%pri%|%hostname%|%app-name%|%procid%|%msgid%|%structured-data%|%msg%\\n")
${rulesets}
input(type="imudp" port="${ports.udp}" address="127.0.0.1" ruleset="udp")
input(type="imtcp" port="${ports.tcp}" address="127.0.0.1" ruleset="tcp")
input(type="imtcp" port="${ports.tls}" address="127.0.0.1" ruleset="tls" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")
`,
  );
  const child: ChildProcess = spawn(
    '/usr/sbin/rsyslogd',
    ['-n', '-f', join(dir, 'rsyslog.conf'), '-i', join(dir, 'rsyslogd.pid')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  };
  // A safety net only, under the hooks' 60 s: a loaded machine starts it slowly.
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (PORT_TAKEN.test(output)) {
      await stop();
      throw new PortTaken(`rsyslogd could not bind a port:\n${output}`);
    }
    const listening = await Promise.all([ports.tcp, ports.tls].map(accepts));
    if (listening.every(Boolean)) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`rsyslogd did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    ports,
    caFile: cert,
    received(transport) {
      const file = join(dir, `${transport}.log`);
      return existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
        : [];
    },
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
