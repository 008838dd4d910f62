import { useState } from 'react';
import { useI18n } from '../../../shared/i18n/i18n-context';

/**
 * Copies the code (an expired one is not copied: the outcome says it expired); the outcome is shown beside the button and, being a live region, read out by
 * screen readers too. Without clipboard access (an insecure origin, a refusal) the user is told
 * to copy it by hand.
 */
export function CopyCodeButton({
  code,
  expired,
  primary,
}: {
  code: string;
  /** The code no longer works: copying says so and copies nothing. */
  expired: boolean;
  primary: boolean;
}) {
  const { t } = useI18n();
  const [outcome, setOutcome] = useState<'copied' | 'failed' | 'expired'>();

  async function copy() {
    setOutcome(undefined);
    if (expired) {
      setOutcome('expired');
      return;
    }
    try {
      if (!navigator.clipboard) throw new Error('The clipboard is not available here');
      await navigator.clipboard.writeText(code);
      setOutcome('copied');
    } catch (error) {
      console.error('The code could not be copied', error);
      setOutcome('failed');
    }
  }

  return (
    <>
      <button
        type="button"
        className={`btn ${primary ? 'btn-primary' : 'btn-outline'}`}
        onClick={() => void copy()}
        data-testid="copy-code"
      >
        {t('content.copyCode')}
      </button>
      <span
        className={`copy-outcome${outcome === 'copied' ? ' text-success' : ' text-danger'}`}
        role="status"
        aria-live="polite"
        data-testid="copy-outcome"
      >
        {outcome === 'copied' && t('content.codeCopied')}
        {outcome === 'failed' && t('content.copyFailed')}
        {outcome === 'expired' && t('content.copyExpired')}
      </span>
    </>
  );
}
