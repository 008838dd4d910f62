import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
/** What a compiler makes of a route's schema: a validator or a serializer. */
type Compiled = (data: never) => unknown;
type RouteCompiler = (route: { schema?: unknown }) => Compiled;
type Factory = (externalSchemas: unknown, options: unknown) => RouteCompiler;

/**
 * Each route's request validators (Ajv) and answer serializers (fast-json-stringify), compiled once
 * per process and reused by every app the process builds, where Fastify compiles them again for
 * each one. A server builds its app once, but the tests build one for nearly every test: compiling
 * the routes' schemas was three quarters of the CPU of building an app, about a second
 * (docs/benchmarks.md, "The test suite"). A compiled function depends only on the schema, the
 * shared schemas and the compiler's options, so those (as JSON) are its key; the compilers are
 * Fastify's own defaults.
 */
const validators = new Map<string, Compiled>();
const serializers = new Map<string, Compiled>();

/** The factory `build` with each compiled function kept in `cache`, by its inputs. */
function keptIn(cache: Map<string, Compiled>, build: Factory): Factory {
  return (externalSchemas, options) => {
    const setup = JSON.stringify([externalSchemas, options]);
    const compile = build(externalSchemas, options);
    return (route) => {
      const key = `${setup}\u0000${JSON.stringify(route.schema)}`;
      let compiled = cache.get(key);
      if (compiled === undefined) {
        compiled = compile(route);
        cache.set(key, compiled);
      }
      return compiled;
    };
  };
}

/** Fastify's `schemaController` option of every app the process builds. */
export const SCHEMA_CONTROLLER: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: {
    buildValidator: keptIn(validators, AjvCompiler() as unknown as Factory),
    buildSerializer: keptIn(serializers, SerializerSelector() as unknown as Factory),
  } as unknown as CompilersFactory,
};

/** How many validators and serializers the process keeps (for the tests). */
export function keptCompiledCounts(): { validators: number; serializers: number } {
  return { validators: validators.size, serializers: serializers.size };
}
