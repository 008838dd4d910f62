import { defineConfig } from 'vite';
import { entryConfig } from './build/entry-config.ts';

// The emergency-access page; the login application has its own config file, built by the same
// script (`vite build && vite build -c vite.login.config.ts`).
export default defineConfig(entryConfig('dea'));
