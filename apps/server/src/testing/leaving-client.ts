import { request } from 'node:http';

/**
 * A client that sends a JSON POST on a connection of its own and can leave before its answer,
 * closing that connection at once, as a person's browser or a RADIUS front does when it gives up.
 * (fetch's pool kept an aborted request's connection open for its keep-alive time, 4 s, before
 * the server could see the client go.) `left` resolves 'left' when it left first, 'answered' when
 * the answer came first, 'failed' when its connection failed before it left.
 */
export function leavingClient(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): { left: Promise<'left' | 'answered' | 'failed'>; leave: () => void } {
  const client = request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    agent: false,
  });
  let leaving = false;
  const left = new Promise<'left' | 'answered' | 'failed'>((resolve) => {
    client.on('error', () => resolve(leaving ? 'left' : 'failed'));
    client.on('response', (response) => {
      response.resume();
      resolve('answered');
    });
  });
  client.end(JSON.stringify(body));
  return {
    left,
    leave: () => {
      leaving = true;
      client.destroy();
    },
  };
}
