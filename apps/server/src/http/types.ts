import type { PoliciesReadWithSession } from '../domain/page/sessions.js';
import type { User } from '../store/store.js';
import type { Services } from '../services.js';

export type { Services } from '../services.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
  interface FastifyRequest {
    /** The signed-in user, set by the session guard. */
    signedIn:
      | {
          user: User;
          sessionId: string;
          /** The user's page policies, when the guard read them with the session (requirePageSession). */
          policies?: PoliciesReadWithSession;
        }
      | undefined;
  }
}
