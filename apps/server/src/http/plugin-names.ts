const DISPLAY_NAME = Symbol.for('fastify.display-name');

/**
 * The plugin, with the name Fastify gives it (in its errors and its plugin tree) set to the
 * function's own name. Fastify names a plugin without one by looking for it among the exports of
 * every module loaded through `require` (`require.cache`), at each registration: a few entries in
 * the bundled server, about a thousand in a test process, where that search was a tenth of the CPU
 * of building an app (docs/benchmarks.md, "The test suite"). A plugin that has a name (made with
 * fastify-plugin) keeps it.
 */
export function named<Plugin extends { readonly name: string }>(plugin: Plugin): Plugin {
  if (!Object.hasOwn(plugin, DISPLAY_NAME))
    Object.defineProperty(plugin, DISPLAY_NAME, { value: plugin.name, enumerable: false });
  return plugin;
}
