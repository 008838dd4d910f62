import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
/** What a compiler makes of a route's schema: a validator or a serializer. */
type Compiled = (data: never, context?: unknown) => unknown;
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
 *
 * Each is compiled when its route is first asked, not when the app is built: a server process
 * spent about 1.4 of its 3.4 CPU-seconds of start compiling every route's schemas (about 60 server
 * processes a test run, and every start of an instance); a route's first request pays its own,
 * a few milliseconds (docs/benchmarks.md, "Start-up and the command line").
 */
const validators = new Map<string, Kept>();
const serializers = new Map<string, Kept>();
let compiledSoFar = 0;

/**
 * A function that compiles with `compile` on its first call and calls the compiled one from then
 * on. What Fastify reads of a validator besides calling it (Ajv's `errors` after a call that
 * failed, `schemaEnv` before one) is read from the compiled function.
 */
function compiledOnFirstCall(compile: () => Compiled): Compiled {
  let compiled: Compiled | undefined;
  const compiledOnce = (): Compiled => {
    if (compiled === undefined) {
      compiled = compile();
      compiledSoFar += 1;
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

/** The compiled functions of one compiler setup (shared schemas and options), by schema. */
interface Kept {
  /** By the schema's JSON: equal schemas share one function, whichever object carries them. */
  byJson: Map<string, Compiled>;
  /**
   * By the schema object itself: a route's schemas are the same objects in every app the process
   * builds (module constants, and the answers `documented` keeps), which Fastify reads and never
   * changes. Finding them by identity spares writing and hashing their JSON again for every app,
   * which was half the CPU of a test app's `ready` (docs/benchmarks.md, "The test suite").
   */
  byObject: WeakMap<object, Compiled>;
}

/** The factory `build` with each compiled function kept in `cache`, by its inputs. */
function keptIn(cache: Map<string, Kept>, build: Factory): Factory {
  return (externalSchemas, options) => {
    const setup = JSON.stringify([externalSchemas, options]);
    let kept = cache.get(setup);
    if (kept === undefined) {
      kept = { byJson: new Map(), byObject: new WeakMap() };
      cache.set(setup, kept);
    }
    const { byJson, byObject } = kept;
    const compile = build(externalSchemas, options);
    return (route) => {
      const schema = route.schema;
      const isObject = typeof schema === 'object' && schema !== null;
      let compiled = isObject ? byObject.get(schema) : undefined;
      if (compiled !== undefined) return compiled;
      const json = String(JSON.stringify(schema));
      compiled = byJson.get(json);
      if (compiled === undefined) {
        compiled = compiledOnFirstCall(() => compile(route));
        byJson.set(json, compiled);
      }
      if (isObject) byObject.set(schema, compiled);
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

/**
 * How many validators and serializers the process keeps, and how many of them have been compiled
 * (for the tests).
 */
export function keptCompiledCounts(): { validators: number; serializers: number; compiled: number } {
  const count = (cache: Map<string, Kept>) =>
    [...cache.values()].reduce((sum, kept) => sum + kept.byJson.size, 0);
  return { validators: count(validators), serializers: count(serializers), compiled: compiledSoFar };
}
