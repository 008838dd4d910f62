import { spawnSync, type SpawnSyncReturns } from 'node:child_process';

/**
 * An ES module's code run by Node.js as the user nobody (group nogroup), as a service that is not
 * root reads files through its group: root reads every file. `cwd` must be a folder nobody may
 * enter; the modules it imports must be readable by nobody (built into that folder).
 */
export function runAsNobody(code: string, cwd: string): SpawnSyncReturns<string> {
  return spawnSync(
    'runuser',
    ['-u', 'nobody', '-g', 'nogroup', '--', process.execPath, '--input-type=module', '-e', code],
    { encoding: 'utf8', cwd },
  );
}
