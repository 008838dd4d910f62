import { defineConfig } from 'vite';
import { entryConfig } from './build/entry-config.ts';

// The base login application, built into dist/login (served at DEA_LOGIN_PATH, default /login/).
export default defineConfig(entryConfig('login'));
