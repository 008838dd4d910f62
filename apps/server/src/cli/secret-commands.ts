import { outboxSealing } from '../delivery/outbox-provider.js';
import { resealOutbox, secretStatus } from '../domain/retention/secret-rotation.js';
import { type CommandGroup, isoTime, noMoreArguments } from './command.js';

const plural = (count: number, one: string, many = `${one}s`): string =>
  `${count} ${count === 1 ? one : many}`;

/** `dea secret status` and `dea secret reseal`: replacing DEA_SECRET (docs/operator/upgrades.md, Replacing the secret). */
export const secretCommands: CommandGroup = {
  name: 'secret',
  summary: 'the server secret: what a rotation still needs from the previous one',
  commands: {
    status: {
      summary: 'says which secret the store uses, what still needs DEA_SECRET_PREVIOUS, and when it can go',
      usage: '',
      options: {},
      async run(_values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store, keys } = await context.open();
        const now = context.now();
        const status = await secretStatus(store, keys, context.config.sessionAbsoluteMs, now, outboxSealing);
        context.out(`DEA_SECRET: fingerprint ${status.fingerprint}, the store's secret.`);
        if (status.rotatedAt === null) {
          context.out('The store has never had its secret replaced.');
        } else {
          context.out(
            `It replaced ${status.replaced ?? 'an earlier secret'} on ${isoTime(status.rotatedAt)}.`,
          );
        }
        if (status.previousFingerprint === undefined) {
          context.out('DEA_SECRET_PREVIOUS: not set.');
        } else {
          context.out(`DEA_SECRET_PREVIOUS: fingerprint ${status.previousFingerprint}.`);
        }
        if (status.rotatedAt === null) return 0;
        const waits: string[] = [];
        if (status.codes.count > 0)
          waits.push(
            `${plural(status.codes.count, 'unused code')} made before it (the last expires ${isoTime(status.codes.lastExpiresAt)})`,
          );
        if (status.sessions.count > 0)
          waits.push(
            `${plural(status.sessions.count, 'open session')} started before it (all end by ${isoTime(status.sessions.endBy)})`,
          );
        if (status.outbox > 0)
          waits.push(
            `${plural(status.outbox, 'outbox message')} sealed before it: npx dea secret reseal seals them again`,
          );
        if (status.serviceKeys.length > 0)
          waits.push(
            `${plural(status.serviceKeys.length, 'service key')} not used since (${status.serviceKeys.map((key) => key.name).join(', ')}): each is hashed again when it is next used; or create new ones and revoke these`,
          );
        if (waits.length === 0) {
          context.out(
            'Nothing needs the previous secret any more: remove DEA_SECRET_PREVIOUS from every instance.',
          );
          return 0;
        }
        context.out('Still needing the previous secret:');
        for (const wait of waits) context.out(`  - ${wait}`);
        const blocked = status.outbox > 0 || status.serviceKeys.length > 0;
        context.out(
          blocked
            ? 'Keep DEA_SECRET_PREVIOUS until the outbox and service keys above are dealt with' +
                (status.previousNeededUntil === null
                  ? '.'
                  : ` and at least until ${isoTime(status.previousNeededUntil)}.`)
            : `Keep DEA_SECRET_PREVIOUS until ${isoTime(status.previousNeededUntil)}; then remove it from every instance.`,
        );
        return 0;
      },
    },
    reseal: {
      summary: 'seals the outbox messages made before the rotation again with the current secret',
      usage: '',
      options: {},
      async run(_values, positionals, context) {
        noMoreArguments(positionals, 0);
        const { store, keys } = await context.open();
        const { resealed, unreadable } = await resealOutbox(store, keys, outboxSealing);
        context.out(`Sealed ${plural(resealed, 'outbox message')} again with the current secret.`);
        if (unreadable > 0) {
          context.err(
            `${plural(unreadable, 'outbox message')} could be opened by neither DEA_SECRET nor DEA_SECRET_PREVIOUS: left as they are (the purge removes them after DEA_RETENTION_OUTBOX_DAYS)`,
          );
          return 1;
        }
        return 0;
      },
    },
  },
};
