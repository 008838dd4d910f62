import type {
  AdminLanguageAdd,
  AdminLanguages,
  AdminTexts,
  AdminTextsSet,
  AdminTextsSetResult,
} from '@dea/contract';
import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../shared/components/alert';
import { Spinner } from '../../shared/components/spinner';
import { consoleCall } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { useConsoleLoad } from '../api/use-console-load';
import { BusyButton } from '../components/busy-button';
import { ConsoleTable } from '../components/console-table';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';

/**
 * The page's texts per language beside English: missing ones highlighted (the page shows English
 * there), changed ones saved together and checked by the server (placeholders as in English).
 */
export function TextsSection() {
  const { t } = useConsoleI18n();
  const id = useId();
  const [chosen, setLanguage] = useState<string>();
  const [edited, setEdited] = useState<{ language: string; drafts: Record<string, string> }>();
  const [onlyMissing, setOnlyMissing] = useState(false);
  const [done, setDone] = useState<string>();
  const loadingLanguages = useConsoleLoad(
    (signal) => consoleCall<AdminLanguages>('admin/languages', { signal }),
    [],
  );
  const languages = loadingLanguages.value?.languages;
  // The chosen language, else the first beside English.
  const language = chosen ?? (languages && (languages.find((each) => each.code !== 'en')?.code ?? 'en'));
  const loadingTexts = useConsoleLoad(
    (signal) =>
      language === undefined
        ? undefined
        : consoleCall<AdminTexts>(`admin/texts/${encodeURIComponent(language)}`, { signal }),
    [language],
  );
  const texts = loadingTexts.value?.texts;
  const drafts = edited !== undefined && edited.language === language ? edited.drafts : {};
  const setDrafts = (next: Record<string, string>) =>
    language !== undefined && setEdited({ language, drafts: next });
  const loading = {
    busy: loadingLanguages.busy || loadingTexts.busy,
    error: loadingLanguages.error ?? loadingTexts.error,
  };
  const saving = useConsoleAction();

  const changed = Object.entries(drafts).filter(([key, value]) => {
    const current = texts?.find((text) => text.key === key)?.text ?? '';
    return value.trim() !== '' && value !== current;
  });

  const save = async () => {
    if (language === undefined) return;
    setDone(undefined);
    const body: AdminTextsSet = { texts: Object.fromEntries(changed) };
    const answer = await saving.run(() =>
      consoleCall<AdminTextsSetResult>(`admin/texts/${encodeURIComponent(language)}`, {
        method: 'POST',
        body,
      }),
    );
    if (answer === undefined) return;
    setDone(t('texts.saved', { count: answer.added + answer.replaced }));
    setEdited(undefined);
    loadingTexts.reload();
    loadingLanguages.reload();
  };

  const [newCode, setNewCode] = useState('');
  const [newName, setNewName] = useState('');
  const adding = useConsoleAction();
  const addLanguage = async (event: FormEvent) => {
    event.preventDefault();
    setDone(undefined);
    const body: AdminLanguageAdd = { code: newCode.trim(), name: newName.trim() };
    const answer = await adding.run(() => consoleCall('admin/languages', { method: 'POST', body }));
    if (answer === undefined) return;
    setDone(t('texts.languageAdded', { name: body.name }));
    setNewCode('');
    setNewName('');
    loadingLanguages.reload();
    setLanguage(body.code);
  };

  const current = languages?.find((each) => each.code === language);
  const shown = (texts ?? []).filter((text) => !onlyMissing || text.text === null);
  return (
    <section className="card console-card console-wide" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {t('admin.texts')}
      </h1>
      <p>{t('texts.intro')}</p>
      <FailureAlert error={loading.error} />
      {languages !== undefined && (
        <div className="inline-form">
          <div className="form-field">
            <label htmlFor={`${id}-language`}>{t('texts.language')}</label>
            <select
              id={`${id}-language`}
              value={language}
              onChange={(event) => setLanguage(event.target.value)}
            >
              {languages.map((each) => (
                <option key={each.code} value={each.code}>
                  {t('texts.languageOption', { name: each.name, code: each.code, missing: each.missing })}
                </option>
              ))}
            </select>
          </div>
          <label className="choice">
            <input
              type="checkbox"
              checked={onlyMissing}
              onChange={(event) => setOnlyMissing(event.target.checked)}
            />
            {t('texts.onlyMissing')}
          </label>
        </div>
      )}
      <details className="add-language">
        <summary>{t('texts.addLanguage')}</summary>
        <form className="inline-form" onSubmit={(event) => void addLanguage(event)} noValidate>
          <div className="form-field">
            <label htmlFor={`${id}-code`}>{t('texts.newCode')}</label>
            <input
              id={`${id}-code`}
              dir="ltr"
              value={newCode}
              maxLength={35}
              onChange={(event) => setNewCode(event.target.value)}
            />
          </div>
          <div className="form-field">
            <label htmlFor={`${id}-name`}>{t('texts.newName')}</label>
            <input
              id={`${id}-name`}
              value={newName}
              maxLength={100}
              onChange={(event) => setNewName(event.target.value)}
            />
          </div>
          <BusyButton type="submit" busy={adding.busy} busyLabel={t('saving')}>
            {t('texts.addLanguageButton')}
          </BusyButton>
        </form>
        <FailureAlert error={adding.error} />
      </details>
      {current && (
        <p role="status" data-testid="texts-missing">
          {t('texts.missingCount', { count: current.missing })}
        </p>
      )}
      {done && (
        <Alert variant="success" announce testId="texts-done">
          {done}
        </Alert>
      )}
      <FailureAlert error={saving.error} />
      {texts === undefined ? (
        loading.busy && <Spinner label={t('loading')} showLabel />
      ) : (
        <>
          <ConsoleTable
            label={t('admin.texts')}
            columns={[t('texts.key'), t('texts.english'), t('texts.text')]}
            testId="texts-table"
          >
            {shown.map((text) => (
              <tr key={text.key} className={text.text === null ? 'missing-text' : undefined}>
                <td>
                  <code>{text.key}</code>
                  {text.text === null && <span className="missing-badge">{t('texts.missing')}</span>}
                </td>
                <td lang="en" dir="ltr">
                  {text.english}
                </td>
                <td>
                  <label className="visually-hidden" htmlFor={`${id}-${text.key}`}>
                    {t('texts.textOf', { key: text.key })}
                  </label>
                  <textarea
                    id={`${id}-${text.key}`}
                    lang={language}
                    rows={2}
                    value={drafts[text.key] ?? text.text ?? ''}
                    onChange={(event) => setDrafts({ ...drafts, [text.key]: event.target.value })}
                  />
                </td>
              </tr>
            ))}
          </ConsoleTable>
          <BusyButton
            busy={saving.busy}
            busyLabel={t('saving')}
            disabled={changed.length === 0}
            onClick={() => void save()}
            testId="texts-save"
          >
            {t('texts.save', { count: changed.length })}
          </BusyButton>
        </>
      )}
    </section>
  );
}
