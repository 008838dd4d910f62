import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { AuditExportConfig } from './audit-export-settings.js';
import type { AuditRecord } from '../domain/ports/audit-destination.js';
import { AuditDestination } from '../domain/ports/audit-destination.js';
import { octetCounted, syslogMessage } from './syslog-format.js';

type SyslogConfig = NonNullable<AuditExportConfig['syslog']>;

/** Messages per write at most over TCP and TLS. */
const STREAM_BATCH = 500;

/**
 * Audit entries to a syslog server as RFC 5424 messages: one datagram each over UDP, or
 * octet-counted on one kept connection over TCP or TLS, connected again after a failure.
 */
export class SyslogDestination extends AuditDestination {
  private socket: Socket | undefined;
  private udp: UdpSocket | undefined;

  constructor(
    private readonly config: SyslogConfig,
    private readonly timeoutMs: number,
    batch: number,
  ) {
    super('syslog', Math.min(batch, config.transport === 'udp' ? 100 : STREAM_BATCH), 0);
  }

  async send(records: readonly AuditRecord[]): Promise<void> {
    const messages = records.map((record) => syslogMessage(record, this.config.facility, process.pid));
    if (this.config.transport === 'udp') {
      for (const message of messages) await this.datagram(message);
      return;
    }
    const socket = this.socket ?? (await this.connect());
    await new Promise<void>((resolve, reject) => {
      socket.write(messages.map(octetCounted).join(''), (error) => (error ? reject(error) : resolve()));
    }).catch((error: unknown) => {
      socket.destroy();
      throw this.failure(error);
    });
  }

  async release(): Promise<void> {
    this.udp?.close();
    this.udp = undefined;
    const socket = this.socket;
    this.socket = undefined;
    if (socket !== undefined) await new Promise<void>((resolve) => socket.end(resolve));
  }

  private datagram(message: string): Promise<void> {
    const udp = this.udp ?? createSocket(this.config.host.includes(':') ? 'udp6' : 'udp4');
    if (this.udp === undefined) {
      udp.on('error', () => undefined);
      udp.unref();
      this.udp = udp;
    }
    return new Promise((resolve, reject) => {
      udp.send(message, this.config.port, this.config.host, (error) =>
        error ? reject(this.failure(error)) : resolve(),
      );
    });
  }

  private connect(): Promise<Socket> {
    const { host, port, transport, ca } = this.config;
    return new Promise((resolve, reject) => {
      const socket =
        transport === 'tls'
          ? tlsConnect({
              host,
              port,
              ...(isIP(host) === 0 && { servername: host }),
              ...(ca !== undefined && { ca }),
            })
          : tcpConnect({ host, port });
      const timer = setTimeout(
        () => socket.destroy(new Error('no connection in time (DEA_AUDIT_EXPORT_TIMEOUT_SECONDS)')),
        this.timeoutMs,
      );
      socket.once(transport === 'tls' ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        socket.setKeepAlive(true, 30_000);
        socket.unref();
        this.socket = socket;
        resolve(socket);
      });
      // A connection that fails or ends is forgotten: the next batch connects again.
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(this.failure(error));
      });
      socket.on('close', () => {
        if (this.socket === socket) this.socket = undefined;
      });
      // A syslog server sends nothing back; whatever it sends is read and ignored.
      socket.resume();
    });
  }

  private failure(error: unknown): Error {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return new Error(
      `${this.config.transport}://${this.config.host}:${this.config.port}: ${code} (check DEA_AUDIT_SYSLOG${this.config.transport === 'tls' ? ' and DEA_AUDIT_SYSLOG_CA_FILE' : ''})`,
    );
  }
}
