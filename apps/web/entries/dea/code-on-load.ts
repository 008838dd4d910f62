// The page's first script: bundled on its own, with nothing shared with the page's
// chunks, so that it runs while they download (vite.config.ts, codeOnLoadScript).
import { askCodeOnLoad } from '../../src/app/code-on-load';

askCodeOnLoad();
