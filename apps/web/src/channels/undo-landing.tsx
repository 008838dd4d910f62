import { useEffect, useId, useRef, useState } from 'react';
import { failureMessage } from '../api/failure-message';
import { Alert } from '../shared/components/alert';
import { ProgressBar } from '../shared/components/progress-bar';
import { useI18n } from '../shared/i18n/i18n-context';
import { resolveMessage, type PageMessage } from '../shared/i18n/page-message';
import { undoChannel } from './channels-api';

type State =
  | { phase: 'asking' }
  | { phase: 'undoing' }
  | { phase: 'done'; passwordChange: 'help-desk' | 'organisation' }
  | { phase: 'refused'; message: PageMessage };

/**
 * The link in a new channel's notice ("this was not me", #undo=<token>): needs no session, since
 * whoever holds the person's other channel opens it, maybe on another device. It asks first, then
 * undoes the channel (what was added with it removed, its sessions ended, its codes taken back,
 * the help desk alerted), then says that someone else knows the password and how to get a new
 * one: a link from the help desk, or the organisation's own way.
 */
export function UndoLanding({ token }: { token: string }) {
  const { t } = useI18n();
  const heading = useId();
  const [state, setState] = useState<State>({ phase: 'asking' });
  const doneRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (state.phase === 'done' || state.phase === 'refused') doneRef.current?.focus();
  }, [state.phase]);

  function onUndo() {
    if (state.phase === 'undoing') return;
    setState({ phase: 'undoing' });
    undoChannel(token).then(
      (answer) => setState({ phase: 'done', passwordChange: answer.passwordChange }),
      (error: unknown) =>
        setState({ phase: 'refused', message: failureMessage(error) ?? { key: 'error.generic' } }),
    );
  }

  return (
    <section className="card channels-card" aria-labelledby={heading}>
      <h1 id={heading} className="card-title">
        {t('channels.undo.heading')}
      </h1>
      {state.phase === 'done' ? (
        <>
          <Alert variant="success" announce focusable ref={doneRef} testId="undo-done">
            {t('channels.undo.done')}
          </Alert>
          <Alert variant="info" testId="undo-password">
            {t(
              state.passwordChange === 'help-desk'
                ? 'channels.undo.passwordHelpDesk'
                : 'channels.undo.passwordOrganisation',
            )}
          </Alert>
        </>
      ) : state.phase === 'refused' ? (
        <Alert variant="danger" announce focusable ref={doneRef} testId="undo-refused">
          {resolveMessage(state.message, t)}
        </Alert>
      ) : (
        <>
          <p>{t('channels.undo.text')}</p>
          {state.phase === 'undoing' && <ProgressBar label={t('channels.working')} />}
          <button
            type="button"
            className="btn btn-primary"
            aria-disabled={state.phase === 'undoing' || undefined}
            onClick={onUndo}
          >
            {t('channels.undo.submit')}
          </button>
        </>
      )}
    </section>
  );
}
