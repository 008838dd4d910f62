import { CHANNEL_KEYS, type AdminPerson, type ChannelKey } from '@dea/contract';
import { useId, useState, type FormEvent } from 'react';
import { consoleCall } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { BusyButton } from '../components/busy-button';
import { ConsoleTable } from '../components/console-table';
import { FailureAlert } from '../components/failure-alert';
import { channelLabel } from '../help-desk/channel-label';
import { useConsoleI18n } from '../i18n/console-i18n';

const SOURCE_TEXT = {
  local: 'source.local',
  ldap: 'source.ldap',
  scim: 'source.scim',
  import: 'source.import',
} as const;
const sourceText = (source: string) =>
  SOURCE_TEXT[(source in SOURCE_TEXT ? source : 'local') as keyof typeof SOURCE_TEXT];

/**
 * A user's channels in the console: a local user's are added, changed and
 * removed here. A new or changed address becomes the channel only when the agent enters the code
 * sent to it, which the person reads out; another source's user's are shown read-only with it.
 */
export function PersonChannelsSection({ person, onChanged }: { person: AdminPerson; onChanged: () => void }) {
  const { t, formatTime } = useConsoleI18n();
  const id = useId();
  const acting = useConsoleAction();
  const [done, setDone] = useState<string>();
  const [key, setKey] = useState<ChannelKey>('mobile');
  const [address, setAddress] = useState('');
  const [codes, setCodes] = useState<Record<string, string>>({});
  const path = (action: string) => `admin/people/${encodeURIComponent(person.id)}/channels/${action}`;
  const editable = person.editable.channels;

  const start = async (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    const body = { key, address: address.trim() };
    const started = await acting.run(() =>
      consoleCall<{ to: string }>(path('proofs'), { method: 'POST', body }),
    );
    if (started !== undefined) {
      setAddress('');
      setDone(t('people.channelSent', { to: started.to }));
      onChanged();
    }
  };
  const prove = async (event: FormEvent, proofId: string) => {
    event.preventDefault();
    setDone(undefined);
    const body = { proofId, code: (codes[proofId] ?? '').trim() };
    const proven = await acting.run(() => consoleCall(path('prove'), { method: 'POST', body }));
    if (proven !== undefined) {
      setDone(t('people.channelProven'));
      onChanged();
    }
  };
  const remove = async (channelKey: string) => {
    setDone(undefined);
    const removed = await acting.run(() =>
      consoleCall(path('remove'), { method: 'POST', body: { key: channelKey } }),
    );
    if (removed !== undefined) {
      setDone(t('people.channelRemoved'));
      onChanged();
    }
  };

  return (
    <section aria-labelledby={`${id}-title`} data-testid="person-channels-section">
      <h2 id={`${id}-title`}>{t('people.channels')}</h2>
      {!editable && (
        <p className="field-hint">{t('people.ownedBy', { source: t(sourceText(person.source)) })}</p>
      )}
      {done && (
        <p role="status" data-testid="person-channels-done">
          {done}
        </p>
      )}
      <FailureAlert error={acting.error} />
      {person.channels.length === 0 ? (
        <p>{t('people.noChannels')}</p>
      ) : (
        <ConsoleTable
          label={t('people.channels')}
          columns={[t('people.channel'), t('people.source')]}
          actions={editable}
          testId="person-channels"
        >
          {person.channels.map((channel) => (
            <tr key={channel.key}>
              <td>
                {channelLabel(t, channel.key)}: <span dir="ltr">{channel.address}</span>
              </td>
              <td>{t(sourceText(channel.source))}</td>
              {editable && (
                <td>
                  <button
                    type="button"
                    className="btn btn-outline"
                    disabled={acting.busy}
                    onClick={() => void remove(channel.key)}
                  >
                    {t('people.channelRemove', { channel: channelLabel(t, channel.key) })}
                  </button>
                </td>
              )}
            </tr>
          ))}
        </ConsoleTable>
      )}
      {editable &&
        person.pendingChannels.map((pending) => (
          <form
            key={pending.proofId}
            onSubmit={(event) => void prove(event, pending.proofId)}
            noValidate
            aria-label={t('people.channelPending', {
              channel: channelLabel(t, pending.key),
              to: pending.to,
              until: formatTime(pending.expiresAt),
            })}
            data-testid="person-channel-pending"
          >
            <p>
              {t('people.channelPending', {
                channel: channelLabel(t, pending.key),
                to: pending.to,
                until: formatTime(pending.expiresAt),
              })}
            </p>
            <div className="form-field">
              <label htmlFor={`${id}-code-${pending.proofId}`}>{t('people.channelCode')}</label>
              <input
                id={`${id}-code-${pending.proofId}`}
                inputMode="numeric"
                autoComplete="off"
                value={codes[pending.proofId] ?? ''}
                onChange={(event) => setCodes({ ...codes, [pending.proofId]: event.target.value })}
              />
            </div>
            <BusyButton type="submit" busy={acting.busy} busyLabel={t('working')}>
              {t('people.channelProve')}
            </BusyButton>
          </form>
        ))}
      {editable && (
        <form onSubmit={(event) => void start(event)} noValidate aria-labelledby={`${id}-add`}>
          <h3 id={`${id}-add`}>{t('people.channelAdd')}</h3>
          <p id={`${id}-add-hint`} className="field-hint">
            {t('people.channelAddHint')}
          </p>
          <div className="form-field">
            <label htmlFor={`${id}-key`}>{t('people.channelKey')}</label>
            <select
              id={`${id}-key`}
              value={key}
              onChange={(event) => setKey(event.target.value as ChannelKey)}
            >
              {CHANNEL_KEYS.map((candidate) => (
                <option key={candidate} value={candidate}>
                  {channelLabel(t, candidate)}
                </option>
              ))}
            </select>
          </div>
          <div className="form-field">
            <label htmlFor={`${id}-address`}>{t('people.channelAddress')}</label>
            <input
              id={`${id}-address`}
              value={address}
              autoCapitalize="none"
              aria-describedby={`${id}-add-hint`}
              onChange={(event) => setAddress(event.target.value)}
            />
          </div>
          <BusyButton type="submit" busy={acting.busy} busyLabel={t('working')} testId="person-channel-send">
            {t('people.channelSend')}
          </BusyButton>
        </form>
      )}
    </section>
  );
}
