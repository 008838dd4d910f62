import { demoAccountsIn } from '../../seed/demo-data.js';
import type { Store } from '../../store/store.js';

/** Whether demo mode is on for a store, and when it was asked for but is off, why. */
export type DemoMode = { on: true } | { on: false; refusal: string | undefined };

/**
 * Demo mode (--demo, DEA_DEMO) is on only on the embedded store and only while every user in it
 * is a demo user (created by the demo seeding): the demo outbox shows a signed-in user the codes
 * sent to them, which on a store of real users would hand a code to whoever has a password. Asked
 * for where it cannot be on, it is off and `refusal` says why and what to do; the start logs it,
 * the seeding and the outbox page (on every request) follow it.
 */
export async function demoModeOf(config: { demo: boolean }, store: Store): Promise<DemoMode> {
  if (!config.demo) return { on: false, refusal: undefined };
  if (store.kind !== 'sqlite') {
    return {
      on: false,
      refusal:
        'demo mode is off: it never runs on PostgreSQL (DATABASE_URL is set). Start without --demo and DEA_DEMO=true.',
    };
  }
  const [users, demoUsers] = await Promise.all([store.users.count(), demoAccountsIn(store)]);
  const others = users - demoUsers.length;
  if (others <= 0) return { on: true };
  return {
    on: false,
    refusal: `demo mode is off: this store holds ${others} ${others === 1 ? 'user' : 'users'} besides the demo users, whose codes the demo outbox (/dea/outbox) would show to anyone with their password. No demo users are created and /dea/outbox is not served. Start without --demo (and DEA_DEMO=false) on this store, or try the product on a new, empty DEA_DATA_DIR.`,
  };
}
