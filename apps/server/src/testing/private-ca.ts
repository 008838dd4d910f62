import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivateCa {
  /** PEM of the authority, as an operator would hand it to DEA_SMTP_CA_FILE. */
  caFile: string;
  /** A server certificate for its names (127.0.0.1 and localhost unless told), signed by that authority. */
  key: string;
  cert: string;
  dispose(): void;
}

/**
 * A certificate authority of one's own, made with openssl, as organisations run for internal relays.
 * `names`: the server certificate's subject alternative names, as openssl writes them. Keys on
 * P-256, as testing/certificates.ts makes them: an RSA key of 2,048 bits took openssl about 0.27
 * CPU-seconds to generate, two for each authority (docs/benchmarks.md).
 */
export function createPrivateCa(names = 'IP:127.0.0.1,DNS:localhost'): PrivateCa {
  const dir = mkdtempSync(join(tmpdir(), 'dea-ca-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Example Private CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  );
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  );
  writeFileSync(file('san.ext'), `subjectAltName=${names}\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('san.ext'),
    '-out',
    file('server.pem'),
  );
  return {
    caFile: file('ca.pem'),
    key: readFileSync(file('server.key'), 'utf8'),
    cert: readFileSync(file('server.pem'), 'utf8'),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
