import type { CommandGroup } from './command.js';

/** Text for roff: backslashes and hyphens escaped, no line starting with a control character. */
function roff(text: string): string {
  const escaped = text.replaceAll('\\', '\\e').replaceAll('-', '\\-');
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped;
}

/**
 * dea(1): the manual page of the command line, made from the same table of commands as
 * `dea --help` (scripts/release.mjs puts it in the package as /usr/share/man/man1/dea.1.gz).
 * `date` is the release's date (YYYY-MM-DD), so that the same commit makes the same page.
 */
export function manualPage(groups: readonly CommandGroup[], version: string, date: string): string {
  const lines = [
    `.TH DEA 1 "${date}" "Emergency Access ${version}" "Emergency Access"`,
    '.SH NAME',
    'dea \\- the command line of Emergency Access (emergency second\\-factor codes)',
    '.SH SYNOPSIS',
    '.B dea',
    '.RB [ \\-\\-config',
    '.IR file ]',
    '.I group command',
    '.RI [ options ]',
    '.br',
    '.B dea \\-\\-version',
    '.br',
    '.B dea \\-\\-help',
    '.SH DESCRIPTION',
    "Runs the operator's tasks on the store of the Emergency Access server the settings name:",
    'users, groups, channels, console accounts, the directory, the audit trail, the retention',
    'purge and the schema. It reads the same settings as the server, from the environment, the',
    'settings files of',
    '.B DEA_SETTINGS_FILES',
    'and the JSON file of',
    '.BR DEA_CONFIG_FILE .',
    'Installed from the package,',
    '.B dea',
    'runs as the service user',
    '.B dea',
    'when started as root.',
    '.SH OPTIONS',
    '.TP',
    '.BI \\-\\-config " file"',
    'Read the settings of this JSON file instead of',
    '.BR DEA_CONFIG_FILE .',
    '.TP',
    '.BR \\-\\-version ", " \\-V',
    "Print the release's version.",
    '.TP',
    '.BR \\-\\-help ", " \\-h',
    'Print the commands; after a command, how it is called.',
    '.SH COMMANDS',
  ];
  for (const group of groups) {
    lines.push('.SS', roff(`${group.name}: ${group.summary}`));
    const commands: [string, (typeof group.commands)[string]][] =
      group.alone === undefined ? Object.entries(group.commands) : [['', group.alone]];
    for (const [name, command] of commands) {
      const call = ['dea', group.name, name, command.usage].filter((part) => part !== '').join(' ');
      lines.push('.TP', `.B ${roff(call)}`, roff(command.summary));
    }
  }
  lines.push(
    '.SH FILES',
    '.TP',
    '.I /usr/lib/dea/dea.env',
    "The release's packaged settings; replaced by every release.",
    '.TP',
    '.I /etc/dea/dea.env',
    "The operator's settings, made once by the package; no release writes it.",
    '.TP',
    '.I /etc/dea/dea.env.d/*.env',
    "The operator's drop\\-in settings, read in name order after",
    '.IR /etc/dea/dea.env .',
    '.TP',
    '.I /etc/dea/secret',
    'The server secret; keep a copy with the backups of the store.',
    '.TP',
    '.I /var/lib/dea',
    'The embedded store.',
    '.SH EXIT STATUS',
    '0 on success, 1 when the command failed, 2 for a wrong invocation or setting.',
    '.SH SEE ALSO',
    'The operator guides in',
    '.IR /usr/share/doc/dea/docs/operator/ ,',
    'every setting in',
    '.IR /usr/share/doc/dea/docs/reference/settings.md .',
    '',
  );
  return lines.join('\n');
}
