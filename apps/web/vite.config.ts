import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build, defineConfig, type Plugin } from 'vite';

const entries = fileURLToPath(new URL('./entries/', import.meta.url));
const contractSource = fileURLToPath(new URL('../../packages/contract/src/index.ts', import.meta.url));
const contractFolder = fileURLToPath(new URL('../../packages/contract/src/', import.meta.url));

/** The contract's schema module builds TypeBox objects at load time; the browser only uses its
 * constants and helpers, so unused contract modules may be dropped whole. */
const moduleSideEffects = (id: string) => !id.startsWith(contractFolder);

/**
 * The page's first script: `entries/dea/code-on-load.ts` bundled on its own, with every
 * module it needs inside (a few kilobytes, nothing shared with the page's chunks, which a module
 * waits for), written as `dea/assets/code-on-load-[hash].js` and put in the page's HTML before the
 * page's own script, which runs after it. It asks for the code while the page's chunks download,
 * when the answers delivered with the HTML say the startup will (src/app/code-on-load.ts).
 */
function codeOnLoadScript(): Plugin {
  let fileName = '';
  let source = '';
  return {
    name: 'dea-code-on-load',
    apply: 'build',
    async buildStart() {
      const built = await build({
        configFile: false,
        logLevel: 'warn',
        root: entries,
        publicDir: false,
        resolve: { alias: { '@dea/contract': contractSource } },
        build: {
          write: false,
          target: 'es2022',
          modulePreload: false,
          rolldownOptions: {
            input: `${entries}dea/code-on-load.ts`,
            treeshake: { moduleSideEffects },
          },
        },
      });
      const outputs = Array.isArray(built) ? built : [built];
      const chunks = outputs.flatMap((output) => ('output' in output ? output.output : []));
      const chunk = chunks.find((file) => file.type === 'chunk');
      if (chunks.length !== 1 || chunk === undefined || chunk.type !== 'chunk')
        throw new Error('entries/dea/code-on-load.ts must build to one file, with nothing shared');
      source = chunk.code;
      fileName = `dea/assets/code-on-load-${createHash('sha256').update(source).digest('base64url').slice(0, 8)}.js`;
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName, source });
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        if (!context.path.endsWith('/dea/index.html') || context.path.includes('channels')) return html;
        return html.replace(
          '<script type="module"',
          `<script type="module" crossorigin src="/${fileName}"></script>\n    <script type="module"`,
        );
      },
    },
  };
}

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
  plugins: [react(), codeOnLoadScript()],
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
      treeshake: { moduleSideEffects },
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
