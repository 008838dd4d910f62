import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { UserConfig } from 'vite';

/**
 * One browser application of the web workspace. The server mounts `dist/<name>` at its own path
 * (`dist/dea` at /dea/, `dist/login` at the login path), so each entry is built on its own into
 * its own folder with its assets beside it, and loads them relative to its page.
 */
export type WebEntry = 'dea' | 'login';

const webRoot = fileURLToPath(new URL('..', import.meta.url));
const contractSource = fileURLToPath(new URL('../../../packages/contract/src/index.ts', import.meta.url));
const contractFolder = fileURLToPath(new URL('../../../packages/contract/src/', import.meta.url));

export function entryConfig(entry: WebEntry): UserConfig {
  return {
    root: `${webRoot}entries/${entry}`,
    base: './',
    publicDir: false,
    plugins: [react()],
    resolve: { alias: { '@dea/contract': contractSource } },
    build: {
      outDir: `${webRoot}dist/${entry}`,
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: 4096,
      reportCompressedSize: true,
      rolldownOptions: {
        treeshake: {
          // The contract's schema module builds TypeBox objects at load time; the page only
          // uses its constants and helpers, so unused contract modules may be dropped whole.
          moduleSideEffects: (id: string) => !id.startsWith(contractFolder),
        },
      },
    },
    server: { port: 5173, proxy: { '/dea/api': 'http://localhost:8080', '/login': 'http://localhost:8080' } },
  };
}
