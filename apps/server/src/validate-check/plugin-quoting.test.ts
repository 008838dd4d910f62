import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fullwidth } from '../testing/spellings.js';
import { agentName, decodesFormTwice, fieldsAsPrivacyIdeaReads, unquoted } from './plugin-quoting.js';

/** Python's own `urllib.parse.unquote`, the call privacyIDEA decodes with, over each text. */
function pythonUnquote(texts: string[]): string[] {
  const run = spawnSync(
    'python3',
    [
      '-c',
      'import json, sys\nfrom urllib.parse import unquote\nprint(json.dumps([unquote(t) for t in json.load(sys.stdin)]))',
    ],
    { input: JSON.stringify(texts), encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}

/** What the FreeRADIUS plugin's two encodings leave once the form is read: UTF-8, each byte `%XY`. */
const encodedOnce = (text: string): string =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** A seeded generator, so that a failure names texts that come again. */
function randomTexts(count: number, seed: number): string[] {
  let state = seed;
  const next = (below: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % below;
  };
  const pieces = ['%', '%%', 'a', 'F', 'f', '0', '9', 'G', ' ', '+', 'ü', '😀', 'ｕ', '\u0000', '\u007f'];
  return Array.from({ length: count }, () => {
    let text = '';
    for (let length = next(12); length > 0; length -= 1) {
      text +=
        next(3) === 0 ? `%${next(256).toString(16).padStart(2, '0')}` : (pieces[next(pieces.length)] ?? '');
    }
    return text;
  });
}

describe("privacyIDEA's second decoding of a form's fields", () => {
  it('decodes every text as Python’s urllib.parse.unquote does, broken UTF-8 and lone % included', () => {
    const texts = [
      'j%C3%BCrgen',
      'UF2%20AJF%20MFWQ',
      encodedOnce(fullwidth('jurgen')),
      'pw%45#test',
      'pw%2545#test',
      'a+b',
      '%',
      '%4',
      '%%41',
      '%zz%41',
      '%c3%bc',
      '%C3',
      '%C3%28',
      '%E2%82',
      '%ED%A0%80',
      '%F4%90%80%80',
      '%C0%AF',
      '%EF%BB%BFbom',
      'ü%C3%BCü',
      'a%C3b%BC',
      '%F0%9F%98%80 😀',
      '%00%7F',
      '',
      'plain',
      ...randomTexts(400, 64),
    ];
    expect(texts.map(unquoted)).toEqual(pythonUnquote(texts));
  });

  it('undoes the FreeRADIUS plugin’s own encoding of non-ASCII names, fullwidth spellings and spaced codes', () => {
    for (const text of ['jürgen', fullwidth('Jürgen'), 'UF2 AJF MFWQ', 'p+q&r=s%t/?#', 'Ärger 😀'])
      expect(unquoted(encodedOnce(text))).toBe(text);
  });

  it('reads the User-Agent’s product name as privacyIDEA does', () => {
    expect(agentName('privacyIDEA-LDAP-Proxy/1.0')).toBe('privacyIDEA-LDAP-Proxy');
    expect(agentName('privacyidea-cp/2.0 Windows/10')).toBe('privacyidea-cp');
    expect(agentName('simpleSAMLphp')).toBe('simpleSAMLphp');
    expect(agentName('privacyIDEA-Keycloak/1.5.0 Keycloak/26.0.0')).toBe('privacyIDEA-Keycloak');
    expect(agentName('FreeRADIUS')).toBe('FreeRADIUS');
    expect(agentName('simpleSAMLphp.module')).toBe('simpleSAMLphp');
    expect(agentName('(compatible)')).toBe('');
    expect(agentName('')).toBe('');
    expect(agentName(undefined)).toBe('');
  });

  it('decodes twice for every client but privacyIDEA’s credential provider, LDAP proxy and SimpleSAMLphp plugin', () => {
    // The User-Agents of privacyIDEA's own test of the rule, and the plugins it names none of.
    for (const agent of [
      'privacyIDEA-LDAP-Proxy',
      'privacyIDEA-LDAP-Proxy/1.0',
      'simpleSAMLphp',
      'privacyidea-cp/2.0',
    ])
      expect(decodesFormTwice(agent), agent).toBe(false);
    for (const agent of [
      'FreeRADIUS',
      'some-generic-agent/1.0',
      'privacyIDEA-Keycloak/1.5.0 Keycloak/26.0.0',
      'privacyidea-pam/1.0',
      'curl/8.5.0',
      'node',
      'Mozilla/5.0 (X11; Linux x86_64)',
      '(no name)',
      '',
      undefined,
    ])
      expect(decodesFormTwice(agent), String(agent)).toBe(true);
  });

  it('decodes a form’s text fields, never a JSON body’s', () => {
    const body = { user: 'j%C3%BCrgen', pass: 'UF2%20AJF%20MFWQ', realm: 'r%41' };
    const decoded = { user: 'jürgen', pass: 'UF2 AJF MFWQ', realm: 'rA' };
    const form = 'application/x-www-form-urlencoded';
    expect(fieldsAsPrivacyIdeaReads(body, form, 'FreeRADIUS')).toEqual(decoded);
    expect(fieldsAsPrivacyIdeaReads(body, `${form}; charset=UTF-8`, undefined)).toEqual(decoded);
    expect(fieldsAsPrivacyIdeaReads(body, 'Application/X-WWW-Form-Urlencoded', 'FreeRADIUS')).toEqual(
      decoded,
    );
    expect(fieldsAsPrivacyIdeaReads(body, form, 'simpleSAMLphp')).toEqual(body);
    expect(fieldsAsPrivacyIdeaReads(body, 'application/json', 'FreeRADIUS')).toEqual(body);
    expect(fieldsAsPrivacyIdeaReads({ user: ['a%41', 'b'] }, form, 'FreeRADIUS')).toEqual({
      user: ['a%41', 'b'],
    });
  });
});
