import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type CompilerCounts, schemaCompilersOnFirstCall } from './schema-compilers.js';

const apps: FastifyInstance[] = [];

/** An app with one POST route whose schemas (body and answer) are new objects of the given content. */
async function appWith(
  bodyMaximum: number,
  counts: CompilerCounts = { given: 0, compiled: 0 },
  coerceTypes = false,
): Promise<FastifyInstance> {
  const app = Fastify({
    schemaController: schemaCompilersOnFirstCall(counts),
    ajv: { customOptions: { coerceTypes, removeAdditional: false, allErrors: false } },
  });
  apps.push(app);
  app.post(
    '/count',
    {
      schema: {
        body: {
          type: 'object',
          properties: { count: { type: 'integer', maximum: bodyMaximum } },
          required: ['count'],
          additionalProperties: false,
        },
        response: {
          200: {
            description: `a count up to ${bodyMaximum}`,
            type: 'object',
            properties: { count: { type: 'integer' } },
            additionalProperties: false,
          },
        },
      },
    },
    async (request) => ({ ...(request.body as object), secret: 'never serialized' }),
  );
  await app.ready();
  return app;
}

const post = (app: FastifyInstance, body: unknown) =>
  app.inject({ method: 'POST', url: '/count', payload: body as object });

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

describe("each route's schemas compiled when the route is first asked", () => {
  it("compiles nothing while the app is built and ready, and a route's validator at its first request, once", async () => {
    const counts = { given: 0, compiled: 0 };
    const app = await appWith(41, counts);
    // The body's validator and the answer's serializer given, neither compiled.
    expect(counts).toEqual({ given: 2, compiled: 0 });
    // A refused body: the validator compiled, and its errors reach the answer.
    const refused = await post(app, { count: 42 });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('must be <= 41');
    expect(counts.compiled).toBe(1);
    // An accepted one: the serializer compiled too, writing the answer's schema only.
    expect((await post(app, { count: 7 })).json()).toEqual({ count: 7 });
    expect(counts.compiled).toBe(2);
    for (let round = 0; round < 3; round += 1) {
      expect((await post(app, { count: 41 })).json()).toEqual({ count: 41 });
      expect((await post(app, { count: 'many' })).statusCode).toBe(400);
      expect((await post(app, { count: 3, extra: true })).statusCode).toBe(400);
    }
    expect(counts.compiled).toBe(2);
  });

  it('compiles for each app its own, with its own options', async () => {
    const strictCounts = { given: 0, compiled: 0 };
    const coercingCounts = { given: 0, compiled: 0 };
    const strict = await appWith(30, strictCounts);
    const coercing = await appWith(30, coercingCounts, true);
    expect((await post(strict, { count: '5' })).statusCode).toBe(400);
    expect((await post(coercing, { count: '5' })).json()).toEqual({ count: 5 });
    expect(strictCounts.compiled).toBe(1);
    expect(coercingCounts.compiled).toBe(2);
  });

  it('a route with a body schema only has its validator given and compiled once, at its first request', async () => {
    const counts = { given: 0, compiled: 0 };
    const app = Fastify({ schemaController: schemaCompilersOnFirstCall(counts) });
    apps.push(app);
    const body = {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 5 } },
      required: ['name'],
      additionalProperties: false,
    };
    app.post('/name', { schema: { body } }, async () => ({}));
    await app.ready();
    const named = (name: string) => app.inject({ method: 'POST', url: '/name', payload: { name } });
    expect((await named('abcdef')).statusCode).toBe(400);
    expect((await named('abc')).statusCode).toBe(200);
    expect(counts).toEqual({ given: 1, compiled: 1 });
  });
});
