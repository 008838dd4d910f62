import type { ChildProcess } from 'node:child_process';

/**
 * Resolved with the match once what `child` has written (`output()`: its stdout and stderr as the
 * caller gathers them, read as they come; from character `from` on) matches `pattern`: a process's
 * own line that says it is ready. Rejected with the output so far when the process exits first, or
 * when `deadlineMs` pass: a safety net only, so that a start that never comes fails the test rather
 * than hangs it. The caller's own listeners on the streams must come first (they gather `output`).
 */
export function outputLine(
  child: ChildProcess,
  output: () => string,
  pattern: RegExp,
  options: { what: string; deadlineMs: number; from?: number },
): Promise<RegExpExecArray> {
  const { what, deadlineMs, from = 0 } = options;
  return new Promise((resolve, reject) => {
    const settle = (done: () => void): void => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', exited);
      child.off('error', failed);
      done();
    };
    const check = (): void => {
      const match = pattern.exec(output().slice(from));
      if (match !== null) settle(() => resolve(match));
    };
    const exited = (code: number | null, signal: NodeJS.Signals | null): void =>
      settle(() => reject(new Error(`${what} exited (${code ?? signal}) before it was ready:\n${output()}`)));
    const failed = (error: Error): void =>
      settle(() => reject(new Error(`${what} could not be started:\n${output()}`, { cause: error })));
    const timer = setTimeout(
      () =>
        settle(() => reject(new Error(`${what} was not ready within ${deadlineMs / 1000} s:\n${output()}`))),
      deadlineMs,
    );
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', exited);
    child.once('error', failed);
    if (child.exitCode !== null || child.signalCode !== null) exited(child.exitCode, child.signalCode);
    else check();
  });
}
