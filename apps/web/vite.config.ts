import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const entries = fileURLToPath(new URL('./entries/', import.meta.url));
const contractSource = fileURLToPath(new URL('../../packages/contract/src/index.ts', import.meta.url));
const contractFolder = fileURLToPath(new URL('../../packages/contract/src/', import.meta.url));

/**
 * One multi-page build of both browser applications: the page (`dist/dea/index.html`, served at
 * /dea/) and the login application (`dist/login/index.html`, served at DEA_LOGIN_PATH). Their
 * modules are split into shared chunks under `dist/dea/assets/`, which both pages load from
 * /dea/assets/, so the journey from the login form to the code downloads React once and the
 * login application works at any path. The console (`dist/admin/index.html`, served at /admin/)
 * shares the same chunks and styles, and so does the channels page (`dist/dea/channels/index.html`,
 * served at /dea/channels/ by the page's folder).
 */
export default defineConfig({
  root: entries,
  base: '/',
  publicDir: false,
  plugins: [react()],
  resolve: { alias: { '@dea/contract': contractSource } },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'dea/assets',
    target: 'es2022',
    assetsInlineLimit: 4096,
    reportCompressedSize: true,
    rolldownOptions: {
      input: {
        dea: `${entries}dea/index.html`,
        login: `${entries}login/index.html`,
        admin: `${entries}admin/index.html`,
        channels: `${entries}dea/channels/index.html`,
      },
      output: { chunkFileNames: 'dea/assets/shared-[hash].js' },
      treeshake: {
        // The contract's schema module builds TypeBox objects at load time; the page only
        // uses its constants and helpers, so unused contract modules may be dropped whole.
        moduleSideEffects: (id: string) => !id.startsWith(contractFolder),
      },
    },
  },
  server: {
    port: 5173,
    proxy: {
      '/dea/api': 'http://localhost:8080',
      '/dea/admin-api': 'http://localhost:8080',
      '/login': 'http://localhost:8080',
    },
  },
});
