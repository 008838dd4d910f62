import { bodies } from './api-bodies.js';

export interface DemoCode {
  code: string;
  sessionId: string;
  xsrf: string;
}

/**
 * What a newcomer does against a running server, over real HTTP: sign in as the demo user and
 * get a code on screen. Throws with the server's answer when a step fails.
 */
export async function demoUserGetsCode(base: string): Promise<DemoCode> {
  const signIn = await fetch(`${base}/login/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'demo', password: 'demo' }),
  });
  const signedIn = (await signIn.json()) as { error: number };
  if (signedIn.error !== 0) throw new Error(`sign-in refused: ${JSON.stringify(signedIn)}`);
  const cookies = signIn.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
  const value = (name: string) =>
    cookies.find((cookie) => cookie.startsWith(`${name}=`))?.split('=')[1] ?? '';
  const xsrf = value('XSRF-TOKEN');
  const headers = { 'content-type': 'application/json', cookie: cookies.join('; '), 'x-xsrf-token': xsrf };
  const post = async (path: string, body: unknown): Promise<unknown> =>
    (await fetch(`${base}/dea/api/${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
  const { userId } = (await post('userinfo', {})) as { userId: string };
  const created = (await post('tempPass/create', bodies.create(userId))) as {
    result: { rows: { password: string }[] } | null;
  };
  const code = created.result?.rows[0]?.password;
  if (code === undefined) throw new Error(`no code: ${JSON.stringify(created)}`);
  return { code, sessionId: value('dea_session'), xsrf };
}
