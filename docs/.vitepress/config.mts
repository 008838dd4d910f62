// The documentation site (npm run docs:build, into docs/.vitepress/dist; npm run docs:preview).
// Its pages are the Markdown files of docs/: the guides, the reference that
// scripts/docs-reference.mjs writes from the code, the architecture map, the benchmarks and the
// decisions. scripts/check-docs.mjs builds it and checks every link of it and of the Markdown.
import { readdirSync } from 'node:fs';
import { defineConfig } from 'vitepress';

/** The decision records, in their order, as the sidebar lists them (a new one is listed by itself). */
const decisions = readdirSync(new URL('../decisions/', import.meta.url))
  .filter((name) => /^\d{4}-.*\.md$/.test(name))
  .sort()
  .map((name) => ({ text: name.replace(/\.md$/, '').replace(/-/g, ' '), link: `/decisions/${name}` }));

export default defineConfig({
  title: 'Emergency Access',
  description: 'Self-service one-time emergency codes for a two-factor authentication product',
  cleanUrls: false,
  // A dead link between pages fails the build; an address of a running server (localhost) is no page.
  ignoreDeadLinks: 'localhostLinks',
  lastUpdated: false,
  // FreeRADIUS's configuration is shown as ini (Shiki has no language of its own for it).
  markdown: { languageAlias: { conf: 'ini' } },
  // No network at build time and no search service: the local index only.
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Operator guide', link: '/operator/install.md' },
      { text: 'Integrator guide', link: '/integrator/api.md' },
      { text: 'Reference', link: '/reference/settings.md' },
      { text: 'Architecture', link: '/architecture.md' },
    ],
    sidebar: [
      {
        text: 'Start',
        items: [
          { text: 'Getting started', link: '/getting-started.md' },
          { text: 'Development', link: '/development.md' },
        ],
      },
      {
        text: 'Operator guide',
        items: [
          { text: 'Install', link: '/operator/install.md' },
          { text: 'Settings', link: '/operator/configure.md' },
          { text: 'Command-line tool', link: '/operator/cli.md' },
          { text: 'Users from LDAP or Active Directory', link: '/operator/directory.md' },
          { text: 'Users from a file', link: '/operator/import.md' },
          { text: 'Users from an identity provider (SCIM)', link: '/operator/scim.md' },
          { text: 'Console accounts', link: '/operator/console.md' },
          { text: 'Delivery', link: '/operator/delivery.md' },
          { text: 'Operations', link: '/operator/operations.md' },
          { text: 'Audit log', link: '/operator/audit.md' },
          { text: 'Upgrades, backups and the secret', link: '/operator/upgrades.md' },
          { text: 'Running on PostgreSQL', link: '/operator/postgresql.md' },
        ],
      },
      {
        text: 'Integrator guide',
        items: [
          { text: 'The API', link: '/integrator/api.md' },
          { text: 'Verifying codes', link: '/integrator/verification.md' },
          { text: 'Webhooks', link: '/integrator/webhooks.md' },
          { text: 'RADIUS', link: '/integrator/radius.md' },
        ],
      },
      {
        text: 'Reference (generated from the code)',
        items: [
          { text: 'Settings', link: '/reference/settings.md' },
          { text: 'Commands', link: '/reference/cli.md' },
          { text: 'Audit events', link: '/reference/audit-events.md' },
          { text: 'Metrics', link: '/reference/metrics.md' },
          { text: 'HTTP API (OpenAPI)', link: '/reference/api.md' },
        ],
      },
      {
        text: 'Design',
        items: [
          { text: 'Architecture', link: '/architecture.md' },
          { text: 'Benchmarks', link: '/benchmarks.md' },
          { text: 'Decisions', collapsed: true, items: decisions },
        ],
      },
    ],
  },
});
