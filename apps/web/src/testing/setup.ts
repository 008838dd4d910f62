import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { browserLocation } from '../shared/browser-location';

beforeEach(() => {
  vi.spyOn(browserLocation, 'assign').mockImplementation(() => undefined);
  window.history.replaceState(null, '', '/dea/');
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  window.localStorage.clear();
  window.sessionStorage.clear();
  document.cookie = 'XSRF-TOKEN=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
  document.title = '';
  document.documentElement.lang = 'en';
  document.documentElement.dir = 'ltr';
  document.getElementById('root')?.remove();
});
