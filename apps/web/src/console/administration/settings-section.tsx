import type { AdminSettings } from '@dea/contract';
import { useId, useState } from 'react';
import { Spinner } from '../../shared/components/spinner';
import { consoleCall } from '../api/console-call';
import { useConsoleLoad } from '../api/use-console-load';
import { ConsoleTable } from '../components/console-table';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';

/** The settings in effect, read-only: secrets only as set or not, addresses without credentials. */
export function SettingsSection() {
  const { t } = useConsoleI18n();
  const id = useId();
  const [filter, setFilter] = useState('');
  const loading = useConsoleLoad((signal) => consoleCall<AdminSettings>('admin/settings', { signal }), []);
  const settings = loading.value?.settings;

  const needle = filter.trim().toUpperCase();
  const shown = settings?.filter((setting) => setting.name.includes(needle)) ?? [];
  return (
    <section className="card console-card console-wide" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="card-title">
        {t('admin.settings')}
      </h1>
      <p>{t('settings.intro')}</p>
      <div className="form-field">
        <label htmlFor={`${id}-filter`}>{t('settings.filter')}</label>
        <input id={`${id}-filter`} value={filter} onChange={(event) => setFilter(event.target.value)} />
      </div>
      <FailureAlert error={loading.error} />
      {settings === undefined ? (
        loading.busy && <Spinner label={t('loading')} showLabel />
      ) : (
        <ConsoleTable
          label={t('admin.settings')}
          columns={[t('settings.name'), t('settings.value'), t('settings.origin')]}
          testId="settings-table"
        >
          {shown.map((setting) => (
            <tr key={setting.name}>
              <td>
                <code>{setting.name}</code>
              </td>
              <td className="details">
                <bdi>
                  {setting.secret
                    ? setting.value === ''
                      ? t('settings.secretUnset')
                      : t('settings.secretSet')
                    : setting.value === ''
                      ? t('settings.empty')
                      : setting.value}
                </bdi>
              </td>
              <td>{setting.isDefault ? t('settings.default') : t('settings.changed')}</td>
            </tr>
          ))}
        </ConsoleTable>
      )}
    </section>
  );
}
