import { fileURLToPath } from 'node:url';
import type { SendType } from '@dea/contract';
import type { Config } from './config.js';
import { randomToken } from './crypto/ids.js';
import { hashPassword } from './crypto/password-hash.js';
import { deriveKeys, loadSecret } from './crypto/secret-keys.js';
import { Catalogs } from './domain/catalogs.js';
import { Sessions } from './domain/sessions.js';
import { SigninThrottle } from './domain/signin-throttle.js';
import type { DeliveryProvider } from './delivery/delivery.js';
import { outboxProvider } from './delivery/outbox-provider.js';
import type { Services } from './http/types.js';
import { ensureBuiltInContent } from './seed/built-in-content.js';
import { seedDemoData } from './seed/demo-data.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';

export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

export interface Started {
  services: Services;
  /** Whether this start created the demo users. */
  seededDemo: boolean;
  generatedSecret: boolean;
}

/** Demo data goes only into the embedded store, and only unless switched off. */
export function wantsDemoData(config: Config, store: Store): boolean {
  return store.kind === 'sqlite' && config.demo !== false;
}

/**
 * Everything an instance needs, ready: keys, store (migrated, with the built-in content), demo
 * data when wanted, and the services the routes use.
 */
export async function startServices(config: Config, now: () => number = Date.now): Promise<Started> {
  const { secret, generated } = loadSecret(config.secret, config.dataDir);
  const keys = deriveKeys(secret);
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.dbPoolSize,
  });
  try {
    await ensureBuiltInContent(store);
    const decoyPasswordHash = hashPassword(randomToken(16), config.passwordHashCost);
    const seededDemo = wantsDemoData(config, store)
      ? await seedDemoData(store, config.passwordHashCost, now())
      : false;
    const outbox = outboxProvider(store, keys.seal, now);
    const delivery = (_type: SendType): DeliveryProvider | undefined => outbox;
    const services: Services = {
      config: { ...config, webDir: config.webDir === '' ? DEFAULT_WEB_DIR : config.webDir },
      store,
      keys,
      catalogs: new Catalogs(store, config.catalogCacheMs, now),
      sessions: new Sessions(store, keys.xsrf, {
        idleMs: config.sessionIdleMs,
        absoluteMs: config.sessionAbsoluteMs,
      }),
      signinThrottle: new SigninThrottle(store, config.signin),
      delivery,
      decoyPasswordHash,
      now,
    };
    return { services, seededDemo, generatedSecret: generated };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Removes expired and used codes and long-gone sessions. */
export async function purgeExpired(services: Services): Promise<{ codes: number; sessions: number }> {
  const now = services.now();
  const [codes, sessions] = await Promise.all([
    services.store.codes.purge(now),
    services.sessions.purge(now),
  ]);
  return { codes, sessions };
}
