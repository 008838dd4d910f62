import { Modal } from '../../../shared/components/modal';
import { useI18n } from '../../../shared/i18n/i18n-context';

/** Spec section 2: Cancel closes; Logout leaves for the server's logout. */
export function LogoutConfirmModal({
  open,
  onCancel,
  onLogout,
}: {
  open: boolean;
  onCancel: () => void;
  onLogout: () => void;
}) {
  const { t } = useI18n();
  return (
    <Modal
      open={open}
      title={t('logout')}
      onClose={onCancel}
      closeLabel={t('close')}
      testId="logout-confirm"
      footer={
        <>
          <button type="button" className="btn btn-outline" onClick={onCancel}>
            {t('cancel')}
          </button>
          <button type="button" className="btn btn-primary" onClick={onLogout}>
            {t('logout')}
          </button>
        </>
      }
    >
      <p>{t('confirmMessage.logout')}</p>
    </Modal>
  );
}
