import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A WebAuthn authenticator in software, as the server sees one: it answers a registration's
 * options with a real credential (a P-256 key), signed client data and authenticator data, and an
 * attestation of the kind asked for: none, packed self-attestation, or packed with a certificate
 * (made with openssl) that names its model's AAGUID; it keeps each credential's key and signs an
 * authentication's challenge with it. Browsers' own authenticators are driven in e2e/specs; this
 * one lets route tests register and use passkeys on both stores.
 */
export type AttestationKind = 'none' | 'self' | 'certificate';

export interface RegistrationOptions {
  challenge: string;
  rp: { id?: string };
}

export interface AuthenticationOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (bytes: Uint8Array | string): Buffer => createHash('sha256').update(bytes).digest();

/** The model's AAGUID as its 16 bytes. */
const aaguidBytes = (aaguid: string): Buffer => Buffer.from(aaguid.replace(/-/g, ''), 'hex');

function coseKey(key: KeyObject): Uint8Array {
  const jwk = key.export({ format: 'jwk' });
  return isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x ?? '', 'base64url')],
      [-3, Buffer.from(jwk.y ?? '', 'base64url')],
    ]),
  );
}

/** An attestation certificate as a vendor puts in its keys: the fields WebAuthn's packed format asks for. */
function attestationCertificate(aaguid: string): { key: KeyObject; der: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'dea-attestation-'));
  try {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const keyFile = join(dir, 'key.pem');
    const certFile = join(dir, 'cert.der');
    writeFileSync(keyFile, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-x509',
        '-key',
        keyFile,
        '-days',
        '2',
        '-subj',
        '/C=DE/O=Example Keys/OU=Authenticator Attestation/CN=Example Key Batch',
        '-addext',
        'basicConstraints=critical,CA:FALSE',
        '-addext',
        `1.3.6.1.4.1.45724.1.1.4=DER:04:10:${aaguidBytes(aaguid).toString('hex').match(/../g)?.join(':') ?? ''}`,
        '-outform',
        'DER',
        '-out',
        certFile,
      ],
      { stdio: 'pipe' },
    );
    return { key: privateKey, der: readFileSync(certFile) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export class SoftwareAuthenticator {
  private readonly certificate: { key: KeyObject; der: Buffer } | undefined;
  /** The credentials it made: their private keys, by credential id. */
  private readonly credentials = new Map<string, KeyObject>();

  constructor(
    readonly aaguid = '00000000-0000-0000-0000-000000000000',
    private readonly attestation: AttestationKind = 'none',
  ) {
    this.certificate = attestation === 'certificate' ? attestationCertificate(aaguid) : undefined;
  }

  /** The browser's answer to navigator.credentials.create() with these options, as JSON. */
  register(options: RegistrationOptions, origin: string) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credentialId = randomBytes(16);
    this.credentials.set(b64url(credentialId), privateKey);
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([
      sha256(options.rp.id ?? new URL(origin).hostname),
      Buffer.from([0x45]), // user present, user verified, attested credential data
      Buffer.alloc(4), // counter 0
      aaguidBytes(this.aaguid),
      idLength,
      credentialId,
      coseKey(publicKey),
    ]);
    const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
    const attStmt = new Map<string, number | Uint8Array | Uint8Array[]>();
    if (this.attestation !== 'none') {
      attStmt.set('alg', -7);
      attStmt.set('sig', sign('sha256', signed, this.certificate?.key ?? privateKey));
      if (this.certificate !== undefined) attStmt.set('x5c', [this.certificate.der]);
    }
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, number | Uint8Array | Uint8Array[]>>([
        ['fmt', this.attestation === 'none' ? 'none' : 'packed'],
        ['attStmt', attStmt],
        ['authData', authData],
      ]),
    );
    return {
      id: b64url(credentialId),
      rawId: b64url(credentialId),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['usb' as const],
      },
      clientExtensionResults: {},
    };
  }

  /**
   * The browser's answer to navigator.credentials.get() with these options, as JSON: signed with
   * the first credential of allowCredentials it holds (or `credentialId`), user verified unless
   * `userVerified` is false (then only user presence).
   */
  authenticate(
    options: AuthenticationOptions,
    origin: string,
    { credentialId, userVerified = true }: { credentialId?: string; userVerified?: boolean } = {},
  ) {
    const id =
      credentialId ??
      options.allowCredentials
        ?.map((allowed) => allowed.id)
        .find((allowed) => this.credentials.has(allowed)) ??
      [...this.credentials.keys()][0];
    const key = id === undefined ? undefined : this.credentials.get(id);
    if (id === undefined || key === undefined) throw new Error('this authenticator holds no such credential');
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }),
    );
    const authenticatorData = Buffer.concat([
      sha256(options.rpId ?? new URL(origin).hostname),
      Buffer.from([userVerified ? 0x05 : 0x01]), // user present, and user verified
      Buffer.alloc(4), // counter 0: an authenticator without a counter
    ]);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), key);
    return {
      id,
      rawId: id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
      },
      clientExtensionResults: {},
    };
  }
}
