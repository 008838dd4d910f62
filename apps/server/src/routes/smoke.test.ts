import { describe, expect, it } from 'vitest';
import { createTestApp } from '../testing/test-app.js';

describe('smoke', () => {
  it.each(['sqlite', 'postgres'] as const)('signs in and creates a code on %s', async (kind) => {
    const t = await createTestApp(kind);
    try {
      const user = await t.createUser();
      const session = await t.signIn(user);
      const response = await t.call('/dea/api/tempPass/create', { count: 1, return: ['id', 'password'], attrs: { user: { id: user.id }, locale: 'en' } }, session);
      expect(response.statusCode).toBe(200);
      expect(response.json().result.rows[0].password).toMatch(/^[2-9A-Z]{10}$/);
    } finally {
      await t.close();
    }
  });
});
