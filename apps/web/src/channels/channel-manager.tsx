import { PasskeyList } from './passkeys/lazy-passkeys';
import { ErrorNumber, type ChannelListEntry, type ChannelListResult } from '@dea/contract';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { EnvelopeError } from '../api/api-error';
import { failureMessage } from '../api/failure-message';
import { Alert } from '../shared/components/alert';
import { ProgressBar } from '../shared/components/progress-bar';
import { Spinner } from '../shared/components/spinner';
import { useLatestValue, usePromise, type PromiseState } from '../shared/hooks/use-promise';
import { useI18n } from '../shared/i18n/i18n-context';
import { resolveMessage, type PageMessage } from '../shared/i18n/page-message';
import { channelKeyLabel, keysOfType, localTime, sourceText } from './channel-labels';
import {
  addChannel,
  forgetDevices,
  listChannels,
  proveChannel,
  removeChannel,
  testChannel,
} from './channels-api';

/** An address waiting for its code; `address` only while this page still knows it (for a new code). */
type Proof = {
  proofId: string;
  key: string;
  to: string;
  expiresAt: string;
  triesLeft?: number;
  address?: string;
};

type Outcome = { kind: 'success' | 'danger'; message: PageMessage; at: number };

/** What a change says, and the proof it leaves open (`{ next: undefined }` closes it). */
type Done = { message?: PageMessage; proof?: { next: Proof | undefined } };

/**
 * With a registration session: the person's channels with their source and state, a test message
 * and removal for each, and a new address added and proven with the code sent to it.
 */
export function ChannelManager({
  locale,
  sessionUntil,
  onSessionEnded,
}: {
  locale: string | undefined;
  sessionUntil?: string;
  /** The registration session ended (its time ran out): the page offers the strong sign-ins again. */
  onSessionEnded: () => void;
}) {
  const { t, language } = useI18n();
  const ids = {
    heading: useId(),
    add: useId(),
    kind: useId(),
    address: useId(),
    prove: useId(),
    code: useId(),
    devices: useId(),
  };
  const [outcome, setOutcome] = useState<Outcome>();
  const [proof, setProof] = useState<Proof>();
  const addressRef = useRef<HTMLInputElement>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const [kind, setKind] = useState<string>('');
  // The code's field takes the focus when a code is sent (again) or a waiting proof is chosen.
  useEffect(() => {
    if (proof !== undefined) codeRef.current?.focus();
  }, [proof]);

  // The list, loaded again (a new round) after each change; until the next answer, and when it
  // fails, the one shown before stays.
  const [round, setRound] = useState(0);
  const listed = usePromise((signal) => listChannels(signal), [round]);
  const list = useLatestValue(listed);
  // A change under way, then its reload: what the list stood at when it started, and what the
  // change shows (its outcome, the proof it opened or closed) once the list it changed is in.
  const [acting, setActing] = useState(false);
  const [change, setChange] = useState<{
    from: PromiseState<ChannelListResult>;
    outcome: Outcome | undefined;
    proof: Done['proof'];
  }>();
  if (change !== undefined && listed !== change.from && listed.state !== 'pending') {
    setChange(undefined);
    setOutcome(change.outcome);
    if (change.proof !== undefined) setProof(change.proof.next);
  }
  const busy = acting || change !== undefined;
  const sessionEnded = useRef(onSessionEnded);
  useEffect(() => {
    sessionEnded.current = onSessionEnded;
  });
  useEffect(() => {
    if (listed.state !== 'rejected') return;
    // The list refuses only a missing registration session with error 3.
    if (listed.error instanceof EnvelopeError && listed.error.errorNumber === ErrorNumber.notPermitted) {
      sessionEnded.current();
      return;
    }
    const message = failureMessage(listed.error);
    if (message !== undefined) setOutcome({ kind: 'danger', message, at: Date.now() });
  }, [listed]);

  const said = (kindOf: Outcome['kind'], message: PageMessage | undefined): Outcome | undefined =>
    message === undefined ? undefined : { kind: kindOf, message, at: Date.now() };

  /**
   * One change at a time, with the progress bar until the list is loaded again; what it shows
   * comes with the list it changed.
   */
  async function act(work: () => Promise<Done>) {
    if (busy) return;
    const from = listed;
    setActing(true);
    setOutcome(undefined);
    let outcome: Outcome | undefined;
    let proofAfter: Done['proof'];
    try {
      const done = await work();
      outcome = said('success', done.message);
      proofAfter = done.proof;
    } catch (error) {
      if (!(error instanceof EnvelopeError)) console.error('The channels page failed', error);
      outcome = said('danger', failureMessage(error));
    } finally {
      setChange({ from, outcome, proof: proofAfter });
      setRound((now) => now + 1);
      setActing(false);
    }
  }

  if (list === undefined)
    return (
      <section className="card channels-card">
        {outcome ? (
          <Alert variant="danger" announce testId="channels-problem">
            {resolveMessage(outcome.message, t)}
          </Alert>
        ) : (
          <Spinner label={t('loading')} />
        )}
      </section>
    );

  const registered = list.channels.filter((channel) => channel.state === 'registered');
  const pending = list.channels.filter((channel) => channel.state === 'pending');
  const policy = list.policy;
  const ownCount = registered.filter((channel) => channel.origin === 'owner').length;
  const sourceKeys = new Set(registered.filter((c) => c.origin === 'source').map((c) => c.key));
  const kinds = (policy?.types ?? []).flatMap((type) =>
    keysOfType(type).filter((key) => !sourceKeys.has(key)),
  );
  const chosenKind = kinds.find((each) => each === kind) ?? kinds[0];
  const full = policy !== undefined && ownCount >= policy.max;

  const startProof = (key: string, address: string) =>
    act(async () => {
      const started = await addChannel(key, address, locale);
      return { proof: { next: { ...started, key, address, triesLeft: undefined } } };
    });

  function onAdd(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const address = addressRef.current?.value.trim() ?? '';
    if (chosenKind === undefined || address === '') return;
    void startProof(chosenKind, address);
  }

  function onProve(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (proof === undefined) return;
    const code = codeRef.current?.value ?? '';
    void act(async () => {
      try {
        await proveChannel(proof.proofId, code, locale);
      } finally {
        if (codeRef.current) codeRef.current.value = '';
      }
      if (addressRef.current) addressRef.current.value = '';
      return {
        message: { key: 'channels.proven', values: { recipient: proof.to } },
        proof: { next: undefined },
      };
    });
  }

  const shownProof: Proof | undefined =
    proof === undefined ? undefined : { ...proof, ...pickPending(pending, proof.proofId) };

  return (
    <section className="card channels-card" aria-labelledby={ids.heading}>
      <h1 id={ids.heading} className="card-title">
        {t('channels.title')}
      </h1>
      {sessionUntil && (
        <p className="form-hint">{t('channels.sessionUntil', { time: localTime(sessionUntil, language) })}</p>
      )}
      {busy && <ProgressBar label={t('channels.working')} />}
      {outcome && (
        <Alert
          key={outcome.at}
          variant={outcome.kind}
          announce
          testId={outcome.kind === 'success' ? 'channels-done' : 'channels-problem'}
        >
          {resolveMessage(outcome.message, t)}
        </Alert>
      )}
      <h2>{t('channels.list.heading')}</h2>
      {registered.length === 0 && pending.length === 0 ? (
        <p>{t('channels.list.none')}</p>
      ) : (
        <ul className="channel-list" data-testid="channel-list">
          {registered.map((channel) => (
            <ChannelRow
              key={channel.key}
              channel={channel}
              busy={busy}
              onTest={() =>
                void act(async () => {
                  const sent = await testChannel(channel.key, locale);
                  return { message: { key: 'channels.testSent', values: { recipient: sent.to } } };
                })
              }
              onRemove={() =>
                void act(async () => {
                  await removeChannel(channel.key);
                  return { message: { key: 'channels.removed', values: { recipient: channel.to } } };
                })
              }
            />
          ))}
          {pending
            .filter((channel) => channel.proofId !== proof?.proofId)
            .map((channel) => (
              <li key={channel.proofId} className="channel-row" data-testid={`channel-${channel.key}`}>
                <span className="channel-name">
                  <span dir="ltr">{channel.to}</span> ({channelKeyLabel(channel.key, t)})
                </span>
                <span className="channel-state">
                  {t('channels.state.pending', { time: localTime(channel.until ?? '', language) })}
                </span>
                <span className="channel-actions">
                  <button
                    type="button"
                    className="btn btn-outline"
                    aria-disabled={busy || undefined}
                    onClick={() =>
                      setProof({
                        proofId: channel.proofId ?? '',
                        key: channel.key,
                        to: channel.to,
                        expiresAt: channel.until ?? '',
                      })
                    }
                  >
                    {t('channels.prove.submit')}
                  </button>
                  <button
                    type="button"
                    className="btn btn-outline"
                    aria-disabled={busy || undefined}
                    onClick={() =>
                      void act(async () => {
                        await removeChannel(channel.key);
                        return { message: { key: 'channels.removed', values: { recipient: channel.to } } };
                      })
                    }
                  >
                    {t('channels.remove')}
                  </button>
                </span>
              </li>
            ))}
        </ul>
      )}
      {shownProof !== undefined ? (
        <form
          onSubmit={onProve}
          aria-labelledby={ids.prove}
          className="channel-form"
          data-testid="prove-form"
        >
          <h2 id={ids.prove}>{t('channels.prove.heading', { recipient: shownProof.to })}</h2>
          <p role="status" data-testid="proof-sent">
            {t('channels.prove.sent', {
              recipient: shownProof.to,
              time: localTime(shownProof.expiresAt, language),
            })}
            {shownProof.triesLeft !== undefined &&
              ` ${t('channels.prove.tries', { count: shownProof.triesLeft })}`}
          </p>
          <div className="form-field">
            <label htmlFor={ids.code}>{t('channels.code')}</label>
            <input
              ref={codeRef}
              id={ids.code}
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              dir="ltr"
            />
          </div>
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" aria-disabled={busy || undefined}>
              {t('channels.prove.submit')}
            </button>
            {shownProof.address !== undefined && (
              <button
                type="button"
                className="btn btn-outline"
                aria-disabled={busy || undefined}
                onClick={() => void startProof(shownProof.key, shownProof.address ?? '')}
              >
                {t('channels.prove.resend')}
              </button>
            )}
            <button type="button" className="btn btn-outline" onClick={() => setProof(undefined)}>
              {t('cancel')}
            </button>
          </div>
        </form>
      ) : (
        <form onSubmit={onAdd} aria-labelledby={ids.add} className="channel-form" data-testid="add-form">
          <h2 id={ids.add}>{t('channels.add.heading')}</h2>
          {policy !== undefined && policy.max > 0 && kinds.length > 0 && (
            <p className="form-hint" data-testid="channel-limit">
              {t('channels.add.limit', { max: policy.max, count: ownCount })}
            </p>
          )}
          {policy === undefined || policy.max === 0 || kinds.length === 0 ? (
            <p>{t('channels.add.notAllowed')}</p>
          ) : full ? (
            <p>{t('channels.add.full')}</p>
          ) : (
            <>
              <div className="form-field">
                <label htmlFor={ids.kind}>{t('channels.add.kind')}</label>
                <select
                  id={ids.kind}
                  name="key"
                  value={chosenKind}
                  onChange={(event) => setKind(event.target.value)}
                >
                  {kinds.map((key) => (
                    <option key={key} value={key}>
                      {channelKeyLabel(key, t)}
                    </option>
                  ))}
                </select>
              </div>
              <div className="form-field">
                <label htmlFor={ids.address}>{t('channels.add.address')}</label>
                <input ref={addressRef} id={ids.address} name="address" dir="ltr" autoComplete="off" />
              </div>
              <button type="submit" className="btn btn-primary" aria-disabled={busy || undefined}>
                {t('channels.add.submit')}
              </button>
            </>
          )}
        </form>
      )}
      <section aria-labelledby={ids.devices} data-testid="remembered-devices">
        <h2 id={ids.devices}>{t('channels.devices.heading')}</h2>
        <p>{t('channels.devices.intro')}</p>
        <button
          type="button"
          className="btn btn-outline"
          aria-disabled={busy || undefined}
          onClick={() =>
            void act(async () => {
              await forgetDevices();
              return { message: { key: 'channels.devices.forgotten' } };
            })
          }
        >
          {t('channels.devices.forget')}
        </button>
      </section>
      <PasskeyList />
      <p>
        <a href="../">{t('channels.back')}</a>
      </p>
    </section>
  );
}

/** What the list says now of the proof under way (its tries left), or nothing once it ended. */
function pickPending(pending: ChannelListEntry[], proofId: string): Partial<Proof> {
  const entry = pending.find((channel) => channel.proofId === proofId);
  return entry?.triesLeft === undefined ? {} : { triesLeft: entry.triesLeft };
}

function ChannelRow({
  channel,
  busy,
  onTest,
  onRemove,
}: {
  channel: ChannelListEntry;
  busy: boolean;
  onTest: () => void;
  onRemove: () => void;
}) {
  const { t, language } = useI18n();
  const nameId = useId();
  const state =
    channel.usable !== false
      ? t('channels.state.proven')
      : channel.reason === 'cooling'
        ? t('channels.state.cooling', { time: localTime(channel.until ?? '', language) })
        : t('channels.state.proofExpired');
  return (
    <li className="channel-row" data-testid={`channel-${channel.key}`}>
      <span className="channel-name" id={nameId}>
        <span dir="ltr">{channel.to}</span> ({channelKeyLabel(channel.key, t)})
      </span>
      <span className="channel-origin">
        {channel.origin === 'source' ? sourceText(channel.source, t) : t('channels.owner')}
      </span>
      <span className="channel-state" data-testid="channel-state">
        {state}
      </span>
      <span className="channel-actions">
        <button
          type="button"
          className="btn btn-outline"
          aria-describedby={nameId}
          aria-disabled={busy || undefined}
          onClick={onTest}
        >
          {t('channels.sendTest')}
        </button>
        {channel.origin === 'owner' && (
          <button
            type="button"
            className="btn btn-outline"
            aria-disabled={busy || undefined}
            onClick={onRemove}
          >
            {t('channels.remove')}
          </button>
        )}
      </span>
    </li>
  );
}
