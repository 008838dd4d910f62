import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

/**
 * Debian's FreeRADIUS in the foreground on the configuration folder `dir` (written by the test),
 * resolved once it is ready to process requests; answers how to stop it, which also removes `dir`.
 * Rejected with its output when it exits or is not ready within 15 s.
 */
export async function startFreeradius(dir: string): Promise<() => void> {
  const child = spawn('/usr/sbin/freeradius', ['-d', dir, '-n', 'radiusd', '-f', '-X'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`freeradius did not start:\n${output}`)), 15_000);
    const listen = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to process requests')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', listen);
    child.stderr.on('data', listen);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`freeradius exited (${code}):\n${output}`));
    });
  }).catch((error: unknown) => {
    stop();
    throw error;
  });
  return stop;
}
