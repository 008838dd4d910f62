import Fastify from 'fastify';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { CONSOLE_ACCESS } from '../domain/console/console-access.js';
import { installConsoleGuard } from './console-guard.js';
import { documented } from './route-docs.js';

const doc = documented({
  summary: 'A count',
  security: 'console',
  result: Type.Object({ n: Type.Integer() }),
});

describe('who may call a console route, declared on the route', () => {
  it('stops the start of a server with a console route that declares no one', async () => {
    const app = Fastify();
    installConsoleGuard(app);
    expect(() => app.get('/forgotten', { schema: doc }, async () => ({ n: 1 }))).toThrow(
      'GET /forgotten: a console route declares who may call it (config.console)',
    );
    await app.close();
  });

  it('puts the guard before the handler of a route that declares roles, and none before one that signs in', async () => {
    const app = Fastify();
    installConsoleGuard(app);
    const guarded: Record<string, number> = {};
    app.addHook('onRoute', (route) => {
      const handlers = route.preHandler;
      guarded[route.url] = handlers === undefined ? 0 : Array.isArray(handlers) ? handlers.length : 1;
    });
    app.get('/groups', { config: { console: CONSOLE_ACCESS.administer }, schema: doc }, async () => ({
      n: 1,
    }));
    app.post('/sign-out', { config: { console: 'session' }, schema: doc }, async () => ({ n: 1 }));
    app.get('/public', async () => ({ n: 1 }));
    await app.ready();
    expect(guarded).toEqual({ '/groups': 1, '/sign-out': 0, '/public': 0 });
    await app.close();
  });
});
