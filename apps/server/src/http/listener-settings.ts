import { isListenAddress } from '../net/address-ranges.js';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import Type from 'typebox';
import { OpenPrivateFileError, readPrivateFileSync } from '../files/private-files.js';
import type { SettingValues } from '../setting-values.js';

/** Where the server listens besides PORT: native TLS and a port of its own for operations. */
export const listenerSettings = {
  DEA_TLS_CERT_FILE: {
    schema: Type.String({ default: '' }),
    doc: 'PEM file of the server certificate (with its chain) for native HTTPS on PORT; with DEA_TLS_KEY_FILE. Empty: plain HTTP (behind a TLS-terminating proxy). Both files are read again on SIGHUP, without dropping connections.',
  },
  DEA_TLS_KEY_FILE: {
    schema: Type.String({ default: '' }),
    doc: 'PEM file of the private key of DEA_TLS_CERT_FILE, readable by the service user only: refused when its group or others may read it (chmod 600).',
  },
  DEA_MANAGEMENT_PORT: {
    schema: Type.String({ pattern: '^$|^[0-9]{1,5}$', default: '' }),
    doc: 'TCP port of /healthz, /readyz and /metrics, which then leave the public port; plain HTTP, for the monitoring network only. Empty: /healthz and /readyz are served on PORT, /metrics only with DEA_PUBLIC_METRICS=true.',
  },
  DEA_PUBLIC_METRICS: {
    schema: Type.Boolean({ default: false }),
    doc: 'true: /metrics is also served on PORT, to anyone who reaches it (block it at the proxy). false: only on DEA_MANAGEMENT_PORT, and nowhere when that is empty.',
  },
  DEA_MANAGEMENT_HOST: {
    schema: Type.String({ default: '' }),
    doc: 'Address the management port listens on (127.0.0.1 for a local Prometheus and health checks); empty: the same as HOST.',
  },
} as const;

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface ListenerConfig {
  /** Native HTTPS on PORT; undefined: plain HTTP. */
  tls: TlsFiles | undefined;
  /** The operations routes on a port of their own; undefined: on PORT. */
  management: { port: number; host: string } | undefined;
  /** /metrics on PORT as well (DEA_PUBLIC_METRICS); it is always on the management port. */
  publicMetrics: boolean;
}

export function listenerConfigOf(
  values: SettingValues<typeof listenerSettings> & { HOST: string },
  problems: string[],
): ListenerConfig {
  const certFile = values.DEA_TLS_CERT_FILE.trim();
  const keyFile = values.DEA_TLS_KEY_FILE.trim();
  if ((certFile === '') !== (keyFile === '')) {
    problems.push(
      'DEA_TLS_CERT_FILE and DEA_TLS_KEY_FILE: set both (native HTTPS) or neither (plain HTTP behind a proxy)',
    );
  }
  for (const [name, host] of [
    ['HOST', values.HOST.trim()],
    ['DEA_MANAGEMENT_HOST', values.DEA_MANAGEMENT_HOST.trim()],
  ] as const) {
    if (host !== '' && !isListenAddress(host)) {
      problems.push(
        `${name}=${JSON.stringify(host)}: not an address to listen on: an IP address (127.0.0.1, ::1, 0.0.0.0 for every address) or a host name such as localhost`,
      );
    }
  }
  const portText = values.DEA_MANAGEMENT_PORT.trim();
  const port = Number(portText);
  if (portText !== '' && port > 65_535) {
    problems.push(`DEA_MANAGEMENT_PORT="${portText}": must be a TCP port, 0 to 65535`);
  }
  return {
    tls: certFile === '' || keyFile === '' ? undefined : { certFile, keyFile },
    management:
      portText === '' ? undefined : { port, host: values.DEA_MANAGEMENT_HOST.trim() || values.HOST },
    publicMetrics: values.DEA_PUBLIC_METRICS,
  };
}

export class TlsFilesError extends Error {}

/**
 * The certificate and key of the TLS settings, checked to form a usable pair; a failure names the
 * setting and the cause (file missing, not PEM, key not of the certificate).
 */
export function readTlsFiles(files: TlsFiles): { cert: Buffer; key: Buffer } {
  const read = (setting: string, path: string, secret = false): Buffer => {
    try {
      return secret ? readPrivateFileSync(path) : readFileSync(path);
    } catch (error) {
      if (error instanceof OpenPrivateFileError) throw new TlsFilesError(`${setting}: ${error.message}`);
      throw new TlsFilesError(
        `${setting}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path and that the service user may read it`,
      );
    }
  };
  const cert = read('DEA_TLS_CERT_FILE', files.certFile);
  const key = read('DEA_TLS_KEY_FILE', files.keyFile, true);
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new TlsFilesError(
      `DEA_TLS_CERT_FILE (${files.certFile}) and DEA_TLS_KEY_FILE (${files.keyFile}) are not a usable certificate and key: ${(error as Error).message}`,
    );
  }
  return { cert, key };
}
