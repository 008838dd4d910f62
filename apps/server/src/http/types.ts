import type { SendType } from '@dea/contract';
import type { Config } from '../config.js';
import type { SecretKeys } from '../crypto/secret-keys.js';
import type { Catalogs } from '../domain/catalogs.js';
import type { Sessions } from '../domain/sessions.js';
import type { SigninThrottle } from '../domain/signin-throttle.js';
import type { DeliveryProvider } from '../delivery/delivery.js';
import type { Store, User } from '../store/store.js';

/** What every route may use; built once in app.ts. */
export interface Services {
  config: Config;
  store: Store;
  keys: SecretKeys;
  catalogs: Catalogs;
  sessions: Sessions;
  signinThrottle: SigninThrottle;
  delivery: (type: SendType) => DeliveryProvider | undefined;
  /**
   * Hash of a random password, checked for unknown users so they take as long as known ones.
   * Computed in the background at start, so it does not delay the start.
   */
  decoyPasswordHash: Promise<string>;
  now: () => number;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
  interface FastifyRequest {
    /** The signed-in user, set by the session guard. */
    signedIn: { user: User; sessionId: string } | undefined;
  }
}
