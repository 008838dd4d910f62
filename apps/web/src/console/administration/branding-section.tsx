import {
  BRANDING_NAMES,
  BRANDING_TYPE_OF,
  type AdminBranding,
  type AdminBrandingReset,
  type AdminBrandingSet,
  type BrandingEntry,
  type BrandingName,
  isBrandingName,
} from '@dea/contract';
import { useId, useState } from 'react';
import { Alert } from '../../shared/components/alert';
import { Spinner } from '../../shared/components/spinner';
import { customBranding } from '../../features/branding/resolve-branding';
import { consoleCall } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { useConsoleLoad } from '../api/use-console-load';
import { BusyButton } from '../components/busy-button';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';
import { BrandingPreview } from './branding-preview';

const MAX_IMAGE_BYTES = 512 * 1024;
type Drafts = Partial<Record<BrandingName, string>>;

/** The entries of the page's branding with a live preview; each saved on its own. */
export function BrandingSection() {
  const { t } = useConsoleI18n();
  const id = useId();
  const [drafts, setDrafts] = useState<Drafts>({});
  const [done, setDone] = useState<string>();
  const [imageProblem, setImageProblem] = useState<BrandingName>();
  const loading = useConsoleLoad((signal) => consoleCall<AdminBranding>('admin/branding', { signal }), []);
  const entries = loading.value?.entries;
  const saving = useConsoleAction();

  /** After a save or a reset, the stored entries again, without the drafts. */
  const reload = () => {
    setDrafts({});
    loading.reload();
  };

  const valueOf = (name: BrandingName, entry: BrandingEntry): string =>
    drafts[name] ?? (entry.isDefault ? '' : entry.value);
  const previewed = customBranding(
    (entries ?? []).map((entry) => {
      const draft = isBrandingName(entry.name) ? drafts[entry.name] : undefined;
      return draft === undefined ? entry : { ...entry, value: draft, isDefault: draft === '' };
    }),
  );

  const save = async (name: BrandingName, value: string) => {
    setDone(undefined);
    const body: AdminBrandingSet = { name, value };
    const answer = await saving.run(() => consoleCall('admin/branding', { method: 'POST', body }));
    if (answer) {
      setDone(t('branding.saved', { name }));
      reload();
    }
  };
  const reset = async (name: BrandingName) => {
    setDone(undefined);
    const body: AdminBrandingReset = { name };
    const answer = await saving.run(() => consoleCall('admin/branding/reset', { method: 'POST', body }));
    if (answer) {
      setDone(t('branding.resetDone', { name }));
      reload();
    }
  };
  const readImage = (name: BrandingName, file: File | undefined) => {
    if (file === undefined) return;
    setImageProblem(file.size > MAX_IMAGE_BYTES ? name : undefined);
    if (file.size > MAX_IMAGE_BYTES) return;
    const reader = new FileReader();
    reader.onload = () =>
      typeof reader.result === 'string' && setDrafts((now) => ({ ...now, [name]: reader.result as string }));
    reader.readAsDataURL(file);
  };

  return (
    <section className="card console-card console-wide" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {t('admin.branding')}
      </h1>
      <p>{t('branding.intro')}</p>
      <FailureAlert error={loading.error} />
      {entries === undefined ? (
        loading.busy && <Spinner label={t('loading')} showLabel />
      ) : (
        <div className="branding-layout">
          <div>
            {BRANDING_NAMES.map((name) => {
              const entry = entries.find((each) => each.name === name);
              if (entry === undefined) return null;
              const type = BRANDING_TYPE_OF[name];
              const field = `${id}-${name}`;
              const changed = drafts[name] !== undefined;
              return (
                <div className="form-field branding-entry" key={name}>
                  <label htmlFor={field}>
                    <code>{name}</code> · {t(`branding.type.${type}`)}
                  </label>
                  <p className="field-hint" id={`${field}-hint`}>
                    {entry.isDefault ? t('branding.isDefault') : t('branding.isCustom')}
                  </p>
                  {type === 'text' || type === 'image' ? (
                    <input
                      id={field}
                      dir="ltr"
                      value={valueOf(name, entry)}
                      aria-describedby={`${field}-hint`}
                      onChange={(event) => setDrafts({ ...drafts, [name]: event.target.value })}
                    />
                  ) : (
                    <textarea
                      id={field}
                      dir="ltr"
                      rows={type === 'css' ? 5 : 2}
                      value={valueOf(name, entry)}
                      aria-describedby={`${field}-hint`}
                      onChange={(event) => setDrafts({ ...drafts, [name]: event.target.value })}
                    />
                  )}
                  {type === 'image' && (
                    <label className="choice">
                      {t('branding.imageFile')}
                      <input
                        type="file"
                        accept="image/*"
                        onChange={(event) => readImage(name, event.target.files?.[0])}
                      />
                    </label>
                  )}
                  {imageProblem === name && (
                    <p className="alert alert-danger" role="alert">
                      {t('branding.imageTooLarge')}
                    </p>
                  )}
                  <div className="button-row">
                    <BusyButton
                      variant="outline"
                      busy={saving.busy}
                      busyLabel={t('saving')}
                      disabled={!changed}
                      onClick={() => void save(name, drafts[name] ?? '')}
                    >
                      {t('branding.save', { name })}
                    </BusyButton>
                    {!entry.isDefault && (
                      <button
                        type="button"
                        className="btn btn-outline"
                        disabled={saving.busy}
                        onClick={() => void reset(name)}
                      >
                        {t('branding.reset', { name })}
                      </button>
                    )}
                  </div>
                </div>
              );
            })}
          </div>
          <div className="branding-side">
            {done && (
              <Alert variant="success" announce testId="branding-done">
                {done}
              </Alert>
            )}
            <FailureAlert error={saving.error} />
            <BrandingPreview branding={previewed} />
          </div>
        </div>
      )}
    </section>
  );
}
