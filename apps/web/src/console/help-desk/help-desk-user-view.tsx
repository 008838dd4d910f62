import { DIRECTORY_ACCOUNT_PROBLEMS, type HelpDeskUser } from '@dea/contract';
import { useId, useState } from 'react';
import { Alert } from '../../shared/components/alert';
import { Spinner } from '../../shared/components/spinner';
import { consoleCall } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { useConsoleLoad } from '../api/use-console-load';
import { BusyButton } from '../components/busy-button';
import { ConsoleTable } from '../components/console-table';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';
import { hrefOf } from '../shell/console-route';
import { channelLabel } from './channel-label';
import { IssueCodeForm } from './issue-code-form';

/** What the help desk's registration-link call answers. */
interface HelpDeskRegistrationLink {
  url: string;
  expiresAt: string;
}

/**
 * Why the directory refused a sign-in of this person when it refused the account itself (Active
 * Directory's reasons, audited by the server): the help desk sees what to have seen to.
 */
function directoryProblemOf(
  details: Readonly<Record<string, unknown>> | undefined,
): (typeof DIRECTORY_ACCOUNT_PROBLEMS)[number] | undefined {
  const problem = details?.reason === 'directory-account' ? details.directoryProblem : undefined;
  return DIRECTORY_ACCOUNT_PROBLEMS.find((known) => known === problem);
}

/**
 * One user as the help desk sees them: group policy, masked channels, unused codes (never their
 * text), lock, sessions and recent audit, with what an agent may do about each.
 */
export function HelpDeskUserView({ userId }: { userId: string }) {
  const { t } = useConsoleI18n();
  const loading = useConsoleLoad(
    (signal) => consoleCall<HelpDeskUser>(`helpdesk/users/${encodeURIComponent(userId)}`, { signal }),
    [userId],
  );
  const { value: user, reload } = loading;

  return (
    <div className="console-stack">
      <p>
        <a href={hrefOf('helpdesk')}>{t('helpdesk.backToSearch')}</a>
      </p>
      {user === undefined && loading.busy && <Spinner label={t('loading')} showLabel />}
      <FailureAlert error={loading.error} />
      {user !== undefined && <UserDetails user={user} reload={reload} refreshing={loading.busy} />}
    </div>
  );
}

function UserDetails({
  user,
  reload,
  refreshing,
}: {
  user: HelpDeskUser;
  reload: () => void;
  refreshing: boolean;
}) {
  const { t, formatTime } = useConsoleI18n();
  const id = useId();
  const action = useConsoleAction();
  const [done, setDone] = useState<string>();
  const path = `helpdesk/users/${encodeURIComponent(user.user.id)}`;

  const act = async (call: string, body: object, message: (count: number) => string) => {
    setDone(undefined);
    const answer = await action.run(() =>
      consoleCall<{ count: number }>(`${path}/${call}`, { method: 'POST', body }),
    );
    if (answer !== undefined) {
      setDone(message(answer.count));
      reload();
    }
  };

  /** Someone else knows the person's password since an undo ("this was not me"), until one is set. */
  const undone = user.registrationUndone?.passwordKnownSince ?? undefined;
  const blocked = user.registrationUndone?.blocked ?? [];

  /** A one-time registration link (the one function of the help desk and dea user registration-link). */
  const [registrationLink, setRegistrationLink] = useState<HelpDeskRegistrationLink>();
  const makeRegistrationLink = async () => {
    setDone(undefined);
    setRegistrationLink(undefined);
    const answer = await action.run(() =>
      consoleCall<HelpDeskRegistrationLink>(`${path}/registration-link`, { method: 'POST', body: {} }),
    );
    if (answer !== undefined) {
      setRegistrationLink(answer);
      reload();
    }
  };

  return (
    <>
      <section className="card console-card" aria-labelledby={`${id}-name`} aria-busy={refreshing}>
        <h1 id={`${id}-name`} className="card-title" data-testid="helpdesk-user-name">
          {user.user.fullName || user.user.username}
        </h1>
        <dl className="facts">
          <dt>{t('helpdesk.username')}</dt>
          <dd>{user.user.username}</dd>
          <dt>{t('helpdesk.groups')}</dt>
          <dd>{user.user.groups.join(', ') || t('none')}</dd>
          <dt>{t('helpdesk.source')}</dt>
          <dd>{user.user.source}</dd>
          <dt>{t('helpdesk.policy')}</dt>
          <dd data-testid="helpdesk-policy">
            {user.policy.enableECode
              ? t('helpdesk.policySummary', {
                  delivery:
                    user.policy.emergencyCodeDelivery === 'Display'
                      ? t('helpdesk.deliveryDisplay')
                      : t('helpdesk.deliveryChannel'),
                  minutes: user.policy.codeValidityMinutes,
                  max: user.policy.maxUnusedCodes,
                })
              : t('helpdesk.codesDisabled')}
          </dd>
        </dl>
        {user.user.disabled && <Alert variant="info">{t('helpdesk.userDisabled')}</Alert>}
        {done && (
          <Alert variant="success" announce testId="helpdesk-done">
            {done}
          </Alert>
        )}
        <FailureAlert error={action.error} />
      </section>

      {user.mayIssue ? (
        <IssueCodeForm user={user} onIssued={reload} />
      ) : (
        <section className="card console-card" aria-labelledby={`${id}-issue`}>
          <h2 id={`${id}-issue`}>{t('issue.title')}</h2>
          <Alert variant="info" testId="issue-not-allowed">
            {t('issue.userDisabled')}
          </Alert>
        </section>
      )}

      <section className="card console-card" aria-labelledby={`${id}-codes`}>
        <h2 id={`${id}-codes`}>{t('helpdesk.codes')}</h2>
        {user.codes.length === 0 ? (
          <p>{t('helpdesk.noCodes')}</p>
        ) : (
          <ConsoleTable
            label={t('helpdesk.codes')}
            columns={[
              t('helpdesk.codeWhere'),
              t('helpdesk.codeCreated'),
              t('helpdesk.codeExpires'),
              t('helpdesk.codeUsesLeft'),
            ]}
            actions
            testId="helpdesk-codes"
          >
            {user.codes.map((code) => (
              <tr key={code.id}>
                <td>{code.channel === 'screen' ? t('helpdesk.codeOnScreen') : code.channel}</td>
                <td>{formatTime(code.createdAt)}</td>
                <td>{formatTime(code.expiresAt)}</td>
                <td>{code.usesLeft}</td>
                <td>
                  <button
                    type="button"
                    className="btn btn-outline"
                    disabled={action.busy}
                    onClick={() =>
                      void act('codes/revoke', { codeId: code.id }, (count) =>
                        t('helpdesk.revoked', { count }),
                      )
                    }
                  >
                    {t('helpdesk.revoke')}
                  </button>
                </td>
              </tr>
            ))}
          </ConsoleTable>
        )}
        {user.codes.length > 1 && (
          <BusyButton
            variant="outline"
            busy={action.busy}
            busyLabel={t('working')}
            onClick={() => void act('codes/revoke', {}, (count) => t('helpdesk.revoked', { count }))}
            testId="helpdesk-revoke-all"
          >
            {t('helpdesk.revokeAll')}
          </BusyButton>
        )}
      </section>

      <section className="card console-card" aria-labelledby={`${id}-access`}>
        <h2 id={`${id}-access`}>{t('helpdesk.access')}</h2>
        <h3>{t('helpdesk.channels')}</h3>
        {user.channels.length === 0 ? (
          <p>{t('helpdesk.noChannels')}</p>
        ) : (
          <ul data-testid="helpdesk-channels">
            {user.channels.map((channel) => (
              <li key={channel.reference}>
                {channelLabel(t, channel.key)}: <bdi>{channel.masked}</bdi>
                {channel.waiting !== null && (
                  <span className="field-hint" data-testid="helpdesk-channel-waiting">
                    {' — '}
                    {channel.waiting === 'cooling' && channel.usableFrom !== null
                      ? t('helpdesk.channelCooling', { until: formatTime(channel.usableFrom) })
                      : t('helpdesk.channelReprove')}
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
        <h3>{t('helpdesk.lock')}</h3>
        <p data-testid="helpdesk-lock">
          {user.lock.locked
            ? user.lock.lockedUntil === null
              ? t('helpdesk.lockedForever', { failures: user.lock.failures })
              : t('helpdesk.lockedUntil', {
                  failures: user.lock.failures,
                  until: formatTime(user.lock.lockedUntil),
                })
            : t('helpdesk.notLocked', { failures: user.lock.failures })}
        </p>
        <BusyButton
          variant="outline"
          busy={action.busy}
          busyLabel={t('working')}
          disabled={!user.lock.locked && user.lock.failures === 0}
          onClick={() => void act('unlock', {}, () => t('helpdesk.unlocked'))}
          testId="helpdesk-unlock"
        >
          {t('helpdesk.unlock')}
        </BusyButton>
        <h3>{t('helpdesk.sessions')}</h3>
        <p data-testid="helpdesk-sessions">
          {user.sessions.length === 0
            ? t('helpdesk.noSessions')
            : t('helpdesk.openSessions', {
                count: user.sessions.length,
                last: formatTime(
                  user.sessions.reduce((a, b) => (a.lastSeenAt > b.lastSeenAt ? a : b)).lastSeenAt,
                ),
              })}
        </p>
        <BusyButton
          variant="outline"
          busy={action.busy}
          busyLabel={t('working')}
          disabled={user.sessions.length === 0}
          onClick={() => void act('sessions/end', {}, (count) => t('helpdesk.sessionsEnded', { count }))}
          testId="helpdesk-end-sessions"
        >
          {t('helpdesk.endSessions')}
        </BusyButton>
        <h3>{t('helpdesk.devices')}</h3>
        <BusyButton
          variant="outline"
          busy={action.busy}
          busyLabel={t('working')}
          onClick={() => void act('devices/forget', {}, (count) => t('helpdesk.devicesForgotten', { count }))}
          testId="helpdesk-forget-devices"
        >
          {t('helpdesk.forgetDevices')}
        </BusyButton>
        <h3>{t('helpdesk.registration')}</h3>
        {undone !== undefined && (
          <Alert variant="danger" testId="helpdesk-password-known">
            {t(
              user.user.source === 'local'
                ? 'helpdesk.passwordKnownLocal'
                : 'helpdesk.passwordKnownOrganisation',
              { time: formatTime(undone) },
            )}
          </Alert>
        )}
        <p>{t('helpdesk.registrationHint')}</p>
        <BusyButton
          variant="outline"
          busy={action.busy}
          busyLabel={t('working')}
          onClick={() => void makeRegistrationLink()}
          testId="helpdesk-registration-link"
        >
          {t('helpdesk.makeRegistrationLink')}
        </BusyButton>
        {registrationLink && (
          <p data-testid="helpdesk-registration-link-made">
            {t('helpdesk.registrationLinkMade', { time: formatTime(registrationLink.expiresAt) })}{' '}
            <code dir="ltr" className="link-text">
              {registrationLink.url}
            </code>
          </p>
        )}
        <BusyButton
          variant="outline"
          busy={action.busy}
          busyLabel={t('working')}
          onClick={() =>
            void act('passkeys/forget', {}, (count) => t('helpdesk.passkeysForgotten', { count }))
          }
          testId="helpdesk-forget-passkeys"
        >
          {t('helpdesk.forgetPasskeys')}
        </BusyButton>
        <p>{t('helpdesk.allowAddressesHint')}</p>
        {blocked.length > 0 && (
          <ul data-testid="helpdesk-blocked-addresses">
            {blocked.map((each) => (
              <li key={`${each.channel}-${each.to}-${each.blockedAt}`}>
                <span dir="ltr">{each.to}</span> · {formatTime(each.blockedAt)}
              </li>
            ))}
          </ul>
        )}
        <BusyButton
          variant="outline"
          busy={action.busy}
          busyLabel={t('working')}
          disabled={blocked.length === 0}
          onClick={() =>
            void act('addresses/allow', {}, (count) => t('helpdesk.addressesAllowed', { count }))
          }
          testId="helpdesk-allow-addresses"
        >
          {t('helpdesk.allowAddresses')}
        </BusyButton>
      </section>

      <section className="card console-card" aria-labelledby={`${id}-audit`}>
        <h2 id={`${id}-audit`}>{t('helpdesk.recentAudit')}</h2>
        {user.audit.length === 0 ? (
          <p>{t('audit.empty')}</p>
        ) : (
          <ul className="audit-list" data-testid="helpdesk-audit">
            {user.audit.map((entry, index) => {
              const problem = directoryProblemOf(entry.details);
              return (
                <li key={`${entry.at}-${index}`}>
                  <time dateTime={entry.at}>{formatTime(entry.at)}</time> <code>{entry.event}</code>
                  {entry.actor && <span className="muted"> · {entry.actor}</span>}
                  {problem && <strong> · {t(`helpdesk.directoryProblem.${problem}`)}</strong>}
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </>
  );
}
