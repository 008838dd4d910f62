import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { demoUserGetsCode } from '../testing/demo-journey.js';
import { spawnServer } from '../testing/processes.js';
import { radclient } from '../testing/radclient.js';

const SECRET = 'process-test-radius-secret';

async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

const dataDir = mkdtempSync(join(tmpdir(), 'dea-radius-process-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the server process with RADIUS configured', () => {
  it('answers radclient with the demo user and a code from the API, and stops gracefully on SIGTERM', async () => {
    const radiusPort = await freeUdpPort();
    const child = spawnServer(['--demo'], {
      DEA_SHUTDOWN_DRAIN_SECONDS: '0',
      PORT: '0',
      HOST: '127.0.0.1',
      DEA_PASSWORD_HASH_COST: '10',
      DEA_DATA_DIR: dataDir,
      DEA_RADIUS_PORT: String(radiusPort),
      DEA_RADIUS_HOST: '127.0.0.1',
      DEA_RADIUS_CLIENTS: `127.0.0.1=${SECRET}`,
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let output = '';
    const base = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        const match = /running: (http:\/\/[^\s"]+)\/dea\//.exec(output);
        if (match?.[1] && output.includes('RADIUS: udp')) resolve(match[1].replace('localhost', '127.0.0.1'));
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then((code) => reject(new Error(`server exited with ${code}:\n${output}`)));
    });
    expect(output).toContain(`RADIUS: udp 127.0.0.1:${radiusPort}`);
    expect(output).not.toContain(SECRET);

    const { code } = await demoUserGetsCode(base);

    expect(await radclient(radiusPort, SECRET, { userName: 'demo', password: code })).toBe('Access-Accept');
    expect(await radclient(radiusPort, SECRET, { userName: 'demo', password: code })).toBe('Access-Reject');

    // Graceful shutdown closes the RADIUS socket with the HTTP server, then the store; exit 0.
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
