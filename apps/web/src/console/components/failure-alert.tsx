import { Alert } from '../../shared/components/alert';
import { failureText } from '../api/failure-text';
import { useConsoleI18n } from '../i18n/console-i18n';

/** A failed call, said in words with what to do; nothing when there is no failure. */
export function FailureAlert({ error, testId }: { error: unknown; testId?: string }) {
  const { t } = useConsoleI18n();
  if (error === undefined) return null;
  return (
    <Alert variant="danger" announce testId={testId ?? 'console-error'}>
      {failureText(t, error)}
    </Alert>
  );
}
