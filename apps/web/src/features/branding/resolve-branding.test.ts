import { describe, expect, it } from 'vitest';
import { customBranding } from './resolve-branding';

describe('customBranding (spec section 3)', () => {
  it("keeps the administrator's values and drops entries marked isDefault", () => {
    expect(
      customBranding([
        { name: 'footerLeft', type: 'html', value: '<b>Acme</b>', isDefault: false },
        { name: 'footerRight', type: 'html', value: 'ignored', isDefault: true },
        { name: 'htmlTitle', type: 'text', value: '', isDefault: false },
        { name: 'unknownEntry', type: 'text', value: 'x', isDefault: false },
      ]),
    ).toEqual({ footerLeft: '<b>Acme</b>', htmlTitle: '' });
  });
});
