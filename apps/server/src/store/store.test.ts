import { describe } from 'vitest';
import { STORE_KINDS } from '../testing/stores.js';
import { storeSuite } from './store.suite.js';

for (const kind of STORE_KINDS) describe(`store on ${kind}`, () => storeSuite(kind));
