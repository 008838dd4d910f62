import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  watch,
  writeFileSync,
} from 'node:fs';
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

/** What rsyslogd says when another process took a port between freePort() and its bind. */
const PORT_TAKEN = /Address already in use|Could not create (tcp|udp) listener/;

/** How many times a start whose port was taken is tried again with other ports. */
const START_ATTEMPTS = 5;

/**
 * Debian's rsyslogd in the foreground, as a syslog server of the tests: one UDP, one TCP and one
 * TLS input (GnuTLS, a certificate made by openssl for 127.0.0.1), each written to a file of its
 * own with the parsed RFC 5424 fields. Ready once its pid file appears: rsyslogd writes it (and
 * renames it into place) after every input has bound and listens, and writes nothing when started
 * well. A port that another process took before rsyslogd bound it (free when asked, taken a moment
 * later; rsyslogd says so before the pid file, and goes on without that input) is a start tried
 * again with new ports.
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
  const pidFile = join(dir, 'rsyslogd.pid');
  rmSync(pidFile, { force: true });
  // Its output goes to a file: all it wrote before its pid file appeared is there to read then.
  const outputFile = join(dir, 'rsyslogd.out');
  const outputFd = openSync(outputFile, 'w');
  const output = () => readFileSync(outputFile, 'utf8');
  const pidFileWritten = watch(dir);
  let child: ChildProcess;
  try {
    child = spawn('/usr/sbin/rsyslogd', ['-n', '-f', join(dir, 'rsyslog.conf'), '-i', pidFile], {
      stdio: ['ignore', outputFd, outputFd],
    });
  } finally {
    closeSync(outputFd);
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const settle = (done: () => void): void => {
        clearTimeout(timer);
        pidFileWritten.off('change', check);
        child.off('exit', exited);
        done();
      };
      const check = (): void => {
        if (existsSync(pidFile)) settle(resolve);
      };
      const exited = (): void => settle(() => reject(new Error(`rsyslogd exited:\n${output()}`)));
      // A safety net only, under the hooks' 60 s: a loaded machine starts it slowly.
      const timer = setTimeout(
        () => settle(() => reject(new Error(`rsyslogd did not start within 45 s:\n${output()}`))),
        45_000,
      );
      pidFileWritten.on('change', check);
      child.once('exit', exited);
      check();
    });
  } catch (error) {
    await stop();
    throw error;
  } finally {
    pidFileWritten.close();
  }
  if (PORT_TAKEN.test(output())) {
    await stop();
    throw new PortTaken(`rsyslogd could not bind a port:\n${output()}`);
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
