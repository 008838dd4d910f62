import { request } from 'node:http';

/**
 * A client that sends a JSON POST on a connection of its own and can leave before its answer,
 * closing that connection at once, as a person's browser or a RADIUS front does when it gives up.
 * (fetch's pool kept an aborted request's connection open for its keep-alive time, 4 s, before
 * the server could see the client go.) `left` resolves 'left' when it left first, 'answered' when
 * the answer came first.
 */
export function leavingClient(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): { left: Promise<'left' | 'answered'>; leave: () => void } {
  const client = request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    agent: false,
  });
  const left = new Promise<'left' | 'answered'>((resolve) => {
    client.on('error', () => resolve('left'));
    client.on('response', (response) => {
      response.resume();
      resolve('answered');
    });
  });
  client.end(JSON.stringify(body));
  return { left, leave: () => client.destroy() };
}
