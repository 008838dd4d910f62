import { messageFileName } from '@dea/contract';
import { useEffect, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { getMessages } from '../../api/methods';
import { backgroundStyle } from '../../features/branding/background-style';
import { BrandedHeader } from '../../features/branding/components/branded-header';
import { PageFooter } from '../../features/branding/components/page-footer';
import type { CustomBranding } from '../../features/branding/resolve-branding';
import { useLatestValue, usePromise } from '../../shared/hooks/use-promise';
import { I18nProvider } from '../../shared/i18n/i18n-context';
import { createTranslator, type Messages } from '../../shared/i18n/translator';
import pageStyles from '../../styles/page.scss?inline';
import { useConsoleI18n } from '../i18n/console-i18n';

/**
 * The page as it will look, drawn by the page's own header and footer components (and so through
 * the page's sanitizer), in a shadow root: the page's stylesheet and the administrator's CSS apply
 * inside it and never to the console around it.
 */
export function BrandingPreview({ branding }: { branding: CustomBranding }) {
  const { t, language } = useConsoleI18n();
  const [host, setHost] = useState<HTMLDivElement | null>(null);
  const [root, setRoot] = useState<ShadowRoot>();
  // The page's texts in the console's language; until they come (or when they fail), those shown
  // before stay.
  const messages: Messages =
    useLatestValue(usePromise(() => getMessages(messageFileName(language)), [language])) ?? {};

  useEffect(() => {
    if (host === null) return;
    setRoot(host.shadowRoot ?? host.attachShadow({ mode: 'open' }));
  }, [host]);

  const pageT = createTranslator(messages);
  const content: ReactNode = (
    <I18nProvider value={{ language, t: pageT }}>
      <style>{pageStyles}</style>
      {branding.CSS && <style>{branding.CSS}</style>}
      <div className="page" style={{ ...backgroundStyle(branding), minHeight: '24rem' }}>
        <BrandedHeader branding={branding} actions={null} />
        <div className="page-main">
          <section className="card">
            <h2 className="card-title">{pageT('content.title')}</h2>
            <p>{pageT('content.yourCode')}</p>
          </section>
        </div>
        <PageFooter branding={branding} />
      </div>
    </I18nProvider>
  );
  return (
    <figure className="branding-preview">
      <figcaption>{t('branding.preview')}</figcaption>
      <div ref={setHost} data-testid="branding-preview" />
      {root && createPortal(content, root)}
    </figure>
  );
}
