import { useState } from 'react';
import { useI18n } from '../../../shared/i18n/i18n-context';

/**
 * Copies the code; the outcome is shown beside the button and, being a live region, read out by
 * screen readers too. Without clipboard access (an insecure origin, a refusal) the user is told
 * to copy it by hand.
 */
export function CopyCodeButton({ code }: { code: string }) {
  const { t } = useI18n();
  const [outcome, setOutcome] = useState<'copied' | 'failed'>();

  async function copy() {
    setOutcome(undefined);
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
      <button type="button" className="btn btn-primary" onClick={() => void copy()} data-testid="copy-code">
        {t('content.copyCode')}
      </button>
      <span
        className={`copy-outcome${outcome === 'failed' ? ' text-danger' : ' text-success'}`}
        role="status"
        aria-live="polite"
        data-testid="copy-outcome"
      >
        {outcome === 'copied' && t('content.codeCopied')}
        {outcome === 'failed' && t('content.copyFailed')}
      </span>
    </>
  );
}
