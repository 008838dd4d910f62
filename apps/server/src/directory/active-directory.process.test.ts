import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, spawnServerProcess } from '../testing/processes.js';
import { sharedSambaDc, type SambaDc } from '../testing/samba-dc.js';

// The run's domain controller (testing/samba-dc.ts), shared with active-directory.test.ts: this
// file's accounts have names of their own.
let dc: SambaDc;
let folder: string;
const tag = randomBytes(3).toString('hex');
const reader = `dea-reader-${tag}`;
const admin = `opadmin${tag}`;

beforeAll(async () => {
  dc = await sharedSambaDc();
  folder = mkdtempSync(join(tmpdir(), 'dea-ad-start-'));
}, 180_000);

afterAll(() => {
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

describe('the start of a server on Active Directory (Samba 4 as a domain controller)', {
  timeout: 180_000,
}, () => {
  it('warns, naming them, when DEA_LDAP_AD_PROTECTED_ADMINS lets the filter take protected administrators', async () => {
    const readerPassword = `Rdr-${randomBytes(6).toString('hex')}!`;
    await dc.admin.addUser(reader, readerPassword);
    await dc.admin.addUser(admin, `Op-${randomBytes(6).toString('hex')}!`);
    await dc.admin.addMembers('Domain Admins', [admin]);
    // What AD's SDProp sets on the members of protected groups.
    await dc.modify(
      `dn: CN=${admin},CN=Users,${dc.baseDn}\nchangetype: modify\nreplace: adminCount\nadminCount: 1\n`,
    );
    const passwordFile = join(folder, 'bind-password');
    writeFileSync(passwordFile, readerPassword, { mode: 0o600 });
    const server = spawnServerProcess({
      DEA_DATA_DIR: join(folder, 'data'),
      DEA_LDAP_URL: dc.ldapsUrl,
      DEA_LDAP_CA_FILE: dc.caFile,
      DEA_LDAP_BASE_DN: dc.baseDn,
      DEA_LDAP_BIND_DN: `CN=${reader},CN=Users,${dc.baseDn}`,
      DEA_LDAP_BIND_PASSWORD_FILE: passwordFile,
      DEA_LDAP_ACTIVE_DIRECTORY: 'true',
      DEA_LDAP_AD_PROTECTED_ADMINS: 'true',
      DEA_LDAP_SYNC_MINUTES: '0',
      // A safety net only: the controller is the run's (other files' work beside this one), and
      // the machine may be loaded; the default of 5 s once ran out on a bind here.
      DEA_LDAP_TIMEOUT_SECONDS: '60',
    });
    try {
      await server.running;
      const line = await server.said(/"level":"?(warn|40)"?[^\n]*DEA_LDAP_AD_PROTECTED_ADMINS is true[^\n]*/);
      expect(line).toContain(admin);
      // Administrator is a critical system object, which the default filter leaves out all the same.
      expect(line).not.toMatch(/Administrator\b(?!s)/);
    } finally {
      const exited = exitOf(server.child);
      server.child.kill('SIGTERM');
      await exited;
    }
  });
});
