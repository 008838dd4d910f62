import { humanDuration } from '@dea/contract';
import { useId } from 'react';
import { useNow } from '../../../shared/hooks/use-now';
import { Spinner } from '../../../shared/components/spinner';
import { useI18n } from '../../../shared/i18n/i18n-context';
import type { CodeView } from '../hooks/use-emergency-code';
import { CopyCodeButton } from './copy-code-button';

type CodeState = Extract<CodeView, { kind: 'code' }>;

/** The code on screen, its hint, and the copy and request-new-code buttons (spec section 2). */
export function CodePanel({ state, onRequestNewCode }: { state: CodeState; onRequestNewCode: () => void }) {
  const { t } = useI18n();
  const hintId = useId();
  const { code, expiresAt, uses, creating, storeFull, nextFreeAt } = state;
  const now = useNow(1000, code !== undefined && expiresAt !== undefined);
  const expired = expiresAt !== undefined && now >= expiresAt;
  return (
    <div className="code-panel" data-store-full={storeFull || undefined} data-testid="code-panel">
      {creating && <Spinner label={t('loading')} />}
      {/* A live region: a new code is read out where the button that asked for it keeps the focus. */}
      <div role="status" aria-live="polite" aria-atomic="true">
        {code && (
          <>
            <p id={hintId} className="code-hint">
              {uses > 1 ? t('content.yourCodeUses', { count: uses }) : t('content.yourCode')}
            </p>
            <div
              className={`code-box${expired ? ' code-expired' : ''}`}
              aria-describedby={hintId}
              data-testid="emergency-code"
              translate="no"
            >
              {code.password}
            </div>
          </>
        )}
      </div>
      {code && expiresAt !== undefined && <Validity expiresAt={expiresAt} now={now} />}
      {storeFull && nextFreeAt !== undefined && <NextCodeAt at={nextFreeAt} />}
      {/* Both buttons always, also once the code expired (spec section 2's on-screen state); once
          it expired (or none could be made), asking for a new one comes first. */}
      <div className="code-actions">
        {code && !expired && (
          <CopyCodeButton key={code.password} code={code.password} expired={false} primary />
        )}
        {/* Also after error 148: the message says when a slot frees up, and trying again is never a dead end. */}
        {/* aria-disabled, not disabled: a disabled button drops the keyboard focus while the code comes. */}
        <button
          type="button"
          className={`btn ${code && !expired ? 'btn-outline' : 'btn-primary'}`}
          onClick={() => {
            if (!creating) onRequestNewCode();
          }}
          aria-disabled={creating}
          data-testid="request-code"
        >
          {t('content.requestCode')}
        </button>
        {code && expired && (
          <CopyCodeButton key={code.password} code={code.password} expired primary={false} />
        )}
      </div>
    </div>
  );
}

/**
 * Until when the code works, with the time left (renewed every second, said in the page's
 * language), or, once it has passed, that it expired and a new one is a button away.
 */
function Validity({ expiresAt, now }: { expiresAt: number; now: number }) {
  const { t, language } = useI18n();
  if (now >= expiresAt)
    return (
      <p className="code-validity code-validity-expired" role="alert" data-testid="code-expired">
        {t('content.codeExpired')}
      </p>
    );
  const time = new Intl.DateTimeFormat(language.replace('_', '-'), { timeStyle: 'short' }).format(expiresAt);
  return (
    <p className="code-validity" data-testid="code-validity">
      {t('content.validUntil', { time, remaining: humanDuration(language, (expiresAt - now) / 1000) })}
    </p>
  );
}

/** After error 148: the clock time from which a new code can be asked for, in the page's language. */
function NextCodeAt({ at }: { at: number }) {
  const { t, language } = useI18n();
  const time = new Intl.DateTimeFormat(language.replace('_', '-'), { timeStyle: 'short' }).format(at);
  return (
    <p className="code-validity" data-testid="next-code-at">
      {t('content.nextCodeAt', { time })}
    </p>
  );
}
