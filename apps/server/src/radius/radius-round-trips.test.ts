import { POLICY_CATEGORY_SELF_SERVICE } from '@dea/contract';
import { describe } from 'vitest';
import { issueCode } from '../domain/codes/codes.js';
import { resolvePolicy } from '../domain/policies/policy.js';
import { PREPARED_MARK } from '../store/prepared-statements.js';
import { appRadiusServer } from '../testing/app-radius.js';
import { appTest } from '../testing/fixtures.js';
import { radclientReply } from '../testing/radclient.js';
import { recordPostgresQueries } from '../testing/recorded-sql.js';
import { STORE_KINDS } from '../testing/stores.js';

const SECRET = 'radius-round-trips-secret-0123';

describe.each(STORE_KINDS)('what a RADIUS request asks the store on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    "reads the user and their group's RADIUS policy together, then verifies: two statements on PostgreSQL",
    async ({ startApp, expect, onTestFinished }) => {
      const t = await startApp();
      const server = await appRadiusServer(t, SECRET, onTestFinished);
      const user = await t.createUser();
      await t.dea(
        ['group', 'radius', 'set', `group-${user.username}`, '--attribute', 'Filter-Id=vpn-staff'],
        {},
      );
      const { store, keys, config } = t.services;
      const policy = resolvePolicy(
        await store.groups.findPolicyOfUser(user.id, POLICY_CATEGORY_SELF_SERVICE),
        config.codeDefaults,
      );
      const { code } = await issueCode(store, keys.codeHash, {
        userId: user.id,
        policy,
        channelType: null,
        clientAddress: null,
        now: t.clock.now(),
      });
      const recorded = kind === 'postgres' ? recordPostgresQueries() : undefined;
      onTestFinished(() => recorded?.stop());
      const accepted = await radclientReply(
        server.port,
        SECRET,
        { userName: user.username, password: code },
        30,
      );
      expect(accepted).toEqual({ answer: 'Access-Accept', attributes: ['Filter-Id = "vpn-staff"'] });
      const rejected = await radclientReply(
        server.port,
        SECRET,
        { userName: user.username, password: code },
        30,
      );
      expect(rejected).toEqual({ answer: 'Access-Reject', attributes: [] });
      if (recorded === undefined) return;
      recorded.stop();
      // Statements about this user (other work of the app may run beside): per request, one read
      // of the user with their policy, then dea_verify_code.
      const about = recorded.queries.filter(
        (query) =>
          query.text.startsWith(PREPARED_MARK) &&
          (JSON.stringify(query.values).includes(user.id) ||
            JSON.stringify(query.values).includes(user.username)),
      );
      expect(about.map((query) => (query.text.includes('dea_verify_code') ? 'verify' : 'read'))).toEqual([
        'read',
        'verify',
        'read',
        'verify',
      ]);
    },
  );
});
