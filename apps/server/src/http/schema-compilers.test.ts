import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_CONTROLLER, keptCompiledCounts } from './schema-compilers.js';

const apps: FastifyInstance[] = [];

/** An app with one POST route whose schemas (body and answer) are new objects of the given content. */
async function appWith(bodyMaximum: number, coerceTypes = false): Promise<FastifyInstance> {
  const app = Fastify({
    schemaController: SCHEMA_CONTROLLER,
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

describe('schemas compiled once per process', () => {
  it('gives a second app with the same schemas the functions compiled for the first, which validate and serialize alike', async () => {
    const first = await appWith(10);
    const kept = keptCompiledCounts();
    expect(kept.validators).toBeGreaterThan(0);
    expect(kept.serializers).toBeGreaterThan(0);
    const second = await appWith(10);
    expect(keptCompiledCounts()).toEqual(kept);
    for (const app of [first, second]) {
      const answered = await post(app, { count: 3 });
      expect(answered.statusCode).toBe(200);
      // The serializer writes the answer's schema, not what the handler returned.
      expect(answered.json()).toEqual({ count: 3 });
      expect((await post(app, { count: 11 })).statusCode).toBe(400);
      expect((await post(app, { count: 3, extra: true })).statusCode).toBe(400);
    }
  });

  it("compiles a route's validator and serializer when the route is first asked, and only once", async () => {
    const before = keptCompiledCounts();
    const first = await appWith(41);
    const second = await appWith(41);
    // Built and ready: both kept, neither compiled yet.
    expect(keptCompiledCounts()).toEqual({
      validators: before.validators + 1,
      serializers: before.serializers + 1,
      compiled: before.compiled,
    });
    // A refused body: the validator compiled, and its errors reach the answer.
    const refused = await post(first, { count: 42 });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('must be <= 41');
    expect(keptCompiledCounts().compiled).toBe(before.compiled + 1);
    expect((await post(second, { count: 7 })).json()).toEqual({ count: 7 });
    expect(keptCompiledCounts().compiled).toBe(before.compiled + 2);
    for (const app of [first, second]) {
      expect((await post(app, { count: 41 })).json()).toEqual({ count: 41 });
      expect((await post(app, { count: 'many' })).statusCode).toBe(400);
    }
    expect(keptCompiledCounts().compiled).toBe(before.compiled + 2);
  });

  it('compiles again for a schema of other content, or other compiler options', async () => {
    await appWith(10);
    const kept = keptCompiledCounts();
    const otherMaximum = await appWith(20);
    expect(keptCompiledCounts().validators).toBe(kept.validators + 1);
    expect((await post(otherMaximum, { count: 15 })).statusCode).toBe(200);
    const strict = await appWith(30);
    const coercing = await appWith(30, true);
    expect((await post(strict, { count: '5' })).statusCode).toBe(400);
    expect((await post(coercing, { count: '5' })).json()).toEqual({ count: 5 });
  });

  it('finds a schema object it has seen by the object, and a new object of the same content by its JSON', async () => {
    const body = {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 5 } },
      required: ['name'],
      additionalProperties: false,
    };
    const appOf = async (schema: object) => {
      const app = Fastify({ schemaController: SCHEMA_CONTROLLER });
      apps.push(app);
      app.post('/name', { schema: { body: schema } }, async () => ({}));
      await app.ready();
      return app;
    };
    const before = keptCompiledCounts();
    const first = await appOf(body);
    const sameObject = await appOf(body);
    const sameContent = await appOf(structuredClone(body));
    expect(keptCompiledCounts().validators).toBe(before.validators + 1);
    for (const app of [first, sameObject, sameContent]) {
      const named = (name: string) => app.inject({ method: 'POST', url: '/name', payload: { name } });
      expect((await named('abc')).statusCode).toBe(200);
      expect((await named('abcdef')).statusCode).toBe(400);
    }
    expect(keptCompiledCounts().compiled).toBe(before.compiled + 1);
  });
});
