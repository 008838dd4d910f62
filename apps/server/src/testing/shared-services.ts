import { request, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';

/**
 * What costs seconds to make and can be shared by the test files of a run (the Samba domain
 * controller, the release artifacts), made in the run's main process (testing/global-setup.ts) the
 * first time a file asks for it, never when no file of the run needs it, and once however many
 * files ask for it side by side. A file asks by name over HTTP on 127.0.0.1 (the workers are other
 * processes): `sharedService(name, input)`; the answer is JSON.
 */
export interface SharedServices {
  url: string;
  stop(): Promise<void>;
}

/** Makes one service: its input (JSON, from the asking file) and the answer, JSON as well. */
export type ServiceMaker = (input: unknown) => Promise<unknown>;

interface Made {
  input: string;
  answer: Promise<unknown>;
}

/**
 * Serves `makers` by name: a name and its key (one service may be made several times, each key
 * once, e.g. two builds of one release) is made once per run; asked again with another input, the
 * answer is an error naming both. `cleanups` run at the end of the run, last made first.
 */
export async function startSharedServices(
  makers: Record<string, ServiceMaker>,
  cleanups: (() => Promise<void>)[] = [],
): Promise<SharedServices> {
  const made = new Map<string, Made>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://shared.test');
      const name = url.pathname.slice(1);
      const key = `${name}/${url.searchParams.get('key') ?? ''}`;
      const maker = makers[name];
      const reply = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (maker === undefined || req.method !== 'POST') {
        reply(404, { error: `no shared service ${name} (testing/global-setup.ts names them)` });
        return;
      }
      let entry = made.get(key);
      if (entry === undefined) {
        entry = { input: body, answer: maker(JSON.parse(body === '' ? 'null' : body) as unknown) };
        // Handled here as well, so that a failure nobody is waiting on yet is not unhandled.
        entry.answer.catch(() => undefined);
        made.set(key, entry);
      } else if (entry.input !== body) {
        reply(409, {
          error: `the shared service ${key} was made with ${entry.input} and is now asked for with ${body}: give it another key`,
        });
        return;
      }
      entry.answer.then(
        (value) => reply(200, value),
        (error: unknown) => reply(500, { error: error instanceof Error ? error.message : String(error) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      // What is still being made is waited for, then undone with the rest.
      await Promise.allSettled([...made.values()].map((entry) => entry.answer));
      for (const cleanup of [...cleanups].reverse()) await cleanup();
    },
  };
}

/**
 * Asks the run's shared services (started by testing/global-setup.ts) for `name`, made with `input`
 * under `key`. No deadline of its own: making a release takes minutes on a loaded machine, and the
 * test's hook has its own.
 */
export async function sharedService<T>(
  name: string,
  input: unknown = null,
  key = '',
  url?: string,
): Promise<T> {
  const base = url ?? inject('sharedServices');
  const body = JSON.stringify(input);
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(`${base}/${name}?key=${encodeURIComponent(key)}`, { method: 'POST' }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  const value = JSON.parse(text) as T & { error?: string };
  if (status !== 200) throw new Error(`the shared ${name} (${key}): ${value.error ?? text}`);
  return value;
}
