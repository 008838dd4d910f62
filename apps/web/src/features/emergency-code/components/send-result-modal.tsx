import { RESULT_MODAL_SIZE } from '@dea/contract';
import { useEffect, useState } from 'react';
import { Alert } from '../../../shared/components/alert';
import { Modal } from '../../../shared/components/modal';
import { useI18n } from '../../../shared/i18n/i18n-context';
import type { SendResult } from '../hooks/use-emergency-code';

/** The outcome of a send (spec section 2): green text naming the recipient, or the server's message. */
export function SendResultModal({
  result,
  onClose,
}: {
  result: SendResult | undefined;
  onClose: () => void;
}) {
  const { t } = useI18n();
  // The last result stays in the modal while it fades out.
  const [last, setLast] = useState(result);
  useEffect(() => {
    if (result) setLast(result);
  }, [result]);
  const shown = result ?? last;

  return (
    <Modal
      open={result !== undefined}
      title={t('message')}
      size={RESULT_MODAL_SIZE}
      onClose={onClose}
      closeLabel={t('close')}
      testId="send-result"
      footer={
        <button type="button" className="btn btn-primary" onClick={onClose}>
          {t('ok')}
        </button>
      }
    >
      {shown?.ok === true && (
        <p className="text-success" data-testid="send-success">
          {t('successMessage', { recipient: shown.to })}
        </p>
      )}
      {shown?.ok === false && (
        <Alert variant="danger" testId="send-error">
          {shown.message}
        </Alert>
      )}
    </Modal>
  );
}
