import { PAGE_CALLS, PAGE_STARTUP_ELEMENT_ID, okEnvelope, pageCallKey } from '@dea/contract';
import { beforeEach, describe, expect, it } from 'vitest';
import { DISPLAY_POLICY, installFakeServer, ok, type FakeServer } from '../testing/fake-server';
import { getPolicy } from './methods';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
  const block = document.createElement('script');
  block.type = 'application/json';
  block.id = PAGE_STARTUP_ELEMENT_ID;
  block.textContent = JSON.stringify({
    [pageCallKey(PAGE_CALLS.policy('user-1'))]: okEnvelope({ options: { ...DISPLAY_POLICY, codeUses: 3 } }),
  });
  document.body.append(block);
});

describe('an answer delivered with the page', () => {
  it('is taken once: the same call made again goes to the server', async () => {
    server.answer('POST user/getPolicy', ok({ options: { ...DISPLAY_POLICY, codeUses: 7 } }));
    expect((await getPolicy('user-1')).options.codeUses).toBe(3);
    expect(server.calls).toHaveLength(0);
    expect((await getPolicy('user-1')).options.codeUses).toBe(7);
    expect(server.callsTo('POST user/getPolicy')).toHaveLength(1);
  });

  it('is left for the next caller by one that has already gone (its signal aborted)', async () => {
    const controller = new AbortController();
    const first = getPolicy('user-1', controller.signal);
    controller.abort();
    await expect(first).rejects.toThrow();
    expect((await getPolicy('user-1')).options.codeUses).toBe(3);
    expect(server.calls).toHaveLength(0);
  });

  it('answers only exactly its call: another user id goes to the server', async () => {
    await getPolicy('user-2');
    expect(server.callsTo('POST user/getPolicy')[0]?.body).toMatchObject({ user: { id: 'user-2' } });
  });
});
