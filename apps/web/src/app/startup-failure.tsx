import { BUILT_IN_PAGE_TEXTS } from '@dea/contract';
import { isLeavingPage } from '../api/api-error';
import { Alert } from '../shared/components/alert';

/**
 * What the page shows when its startup stops before any texts could be loaded (user info, the
 * language list or the texts failed): spec section 8's generic failure, from the built-in English
 * texts. Nothing when the page is already leaving for login or logout (403, 401).
 */
export function StartupFailure({ error }: { error: unknown }) {
  if (isLeavingPage(error)) return null;
  return (
    <main className="page-start startup-failure" data-testid="startup-failure">
      <section className="card">
        <h1 className="card-title">{BUILT_IN_PAGE_TEXTS['content.unavailableTitle']}</h1>
        <Alert variant="danger" announce testId="page-error">
          {BUILT_IN_PAGE_TEXTS['error.generic']}
        </Alert>
      </section>
    </main>
  );
}
