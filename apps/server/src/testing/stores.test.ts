import { describe, expect, it } from 'vitest';
import { storeKindsOf } from './stores.js';

describe('DEA_TEST_STORES', () => {
  it('runs the store suites on both stores when unset, and on the ones it names otherwise', () => {
    expect(storeKindsOf(undefined)).toEqual(['sqlite', 'postgres']);
    expect(storeKindsOf('')).toEqual(['sqlite', 'postgres']);
    expect(storeKindsOf('sqlite')).toEqual(['sqlite']);
    expect(storeKindsOf('postgres')).toEqual(['postgres']);
    expect(storeKindsOf('postgres, sqlite')).toEqual(['sqlite', 'postgres']);
  });

  it('refuses a name that is not a store, naming it and the setting', () => {
    expect(() => storeKindsOf('sqlite,mysql')).toThrow(
      /DEA_TEST_STORES="sqlite,mysql": "mysql" is not a store/,
    );
  });
});
