import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { browserLocation } from '../shared/browser-location';
import { contractDrift } from './contract-answers';
import './evaluated-for';

// A loaded machine (the server suites with PostgreSQL beside these) can take longer than the
// default second to render a page; findBy* and waitFor wait up to fifteen, a safety net only
// (each ends as soon as what it waits for is there): with every step of npm test started at
// once, a wait of five seconds for the code on screen ran out.
configure({ asyncUtilTimeout: 15_000 });

beforeEach(() => {
  vi.spyOn(browserLocation, 'assign').mockImplementation(() => undefined);
  vi.spyOn(browserLocation, 'reload').mockImplementation(() => undefined);
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
  // Startup answers a test delivered with the page and no call took.
  for (const block of document.querySelectorAll('script[type="application/json"]')) block.remove();
  // What the fakes of the server answered against the contract's schemas (contract-answers.ts).
  expect(contractDrift.splice(0), 'answers of the fake server that no server gives').toEqual([]);
});
