import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * A self-signed certificate for 127.0.0.1 made by openssl (P-256), written as `<name>.crt` and
 * `<name>.key` in `dir`; answers the two files and the certificate's SHA-256 fingerprint.
 */
export function selfSignedCertificate(
  dir: string,
  name: string,
): { cert: string; key: string; fingerprint: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
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
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const fingerprint = execFileSync('openssl', ['x509', '-in', cert, '-noout', '-fingerprint', '-sha256'])
    .toString()
    .trim()
    .replace(/^.*=/, '');
  return { cert, key, fingerprint };
}
