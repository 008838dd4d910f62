import { defineConfig } from 'vite';
import { entryConfig } from './build/entry-config.ts';

// The emergency-access page; a later entry (the login application) gets its own config file
// built by the same script (`vite build && vite build -c vite.<entry>.config.ts`).
export default defineConfig(entryConfig('dea'));
