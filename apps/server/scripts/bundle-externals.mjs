// The packages the bundles (scripts/bundle.mjs) leave out and load from node_modules at run time:
// those with native code, the optional native PostgreSQL driver, and the OpenAPI document's
// packages, which read files beside their own code (`__dirname`: Swagger UI's pages, its logo, the
// package's own package.json). The release (scripts/release.mjs) ships these and what they need,
// and no other package's code: everything else is inside the bundles.
export const BUNDLE_EXTERNALS = ['better-sqlite3', 'pg-native', '@fastify/swagger', '@fastify/swagger-ui'];
