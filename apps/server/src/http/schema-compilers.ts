import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SchemaController = NonNullable<FastifyServerOptions['schemaController']>;
type CompilersFactory = NonNullable<SchemaController['compilersFactory']>;
/** What a compiler makes of a route's schema: a validator or a serializer. */
type Compiled = (data: never, context?: unknown) => unknown;
type RouteCompiler = (route: { schema?: unknown }) => Compiled;
type Factory = (externalSchemas: unknown, options: unknown) => RouteCompiler;

/** What an app's compilers have done, for its tests: routes given to them, and compiled. */
export interface CompilerCounts {
  given: number;
  compiled: number;
}

/**
 * A function that compiles with `compile` on its first call and calls the compiled one from then
 * on. What Fastify reads of a validator besides calling it (Ajv's `errors` after a call that
 * failed, `schemaEnv` before one) is read from the compiled function.
 */
function compiledOnFirstCall(compile: () => Compiled, counts: CompilerCounts): Compiled {
  let compiled: Compiled | undefined;
  const compiledOnce = (): Compiled => {
    if (compiled === undefined) {
      compiled = compile();
      counts.compiled += 1;
    }
    return compiled;
  };
  // Fastify calls a validator with the data and, for Ajv's, a context; a serializer with the data.
  const call = (data: never, context?: unknown): unknown => compiledOnce()(data, context);
  Object.defineProperties(call, {
    errors: { get: () => (compiled as { errors?: unknown } | undefined)?.errors },
    schemaEnv: { get: () => (compiledOnce() as { schemaEnv?: unknown }).schemaEnv },
  });
  return call;
}

/** The factory `build`, whose route compilers compile when the route is first asked. */
function onFirstCall(build: Factory, counts: CompilerCounts): Factory {
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route) => {
      counts.given += 1;
      return compiledOnFirstCall(() => compile(route), counts);
    };
  };
}

/**
 * Fastify's `schemaController` option of an app: Fastify's own compilers (Ajv for the requests,
 * fast-json-stringify for the answers), each route's compiled when the route is first asked, not
 * when the app is built: compiling every route's schemas was about 1.4 of a server's 3.4
 * CPU-seconds of start, where a route's first request pays its own, a few milliseconds
 * (docs/decisions/0047). `counts` tells what they did (for the tests).
 */
export function schemaCompilersOnFirstCall(
  counts: CompilerCounts = { given: 0, compiled: 0 },
): SchemaController {
  return {
    compilersFactory: {
      buildValidator: onFirstCall(AjvCompiler() as unknown as Factory, counts),
      buildSerializer: onFirstCall(SerializerSelector() as unknown as Factory, counts),
    } as unknown as CompilersFactory,
  };
}
