import type { AdminGroupCreate, AdminGroups } from '@dea/contract';
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
import { PolicyEditor } from './policy-editor';

/** The groups, highest priority first, with their policies; a group's policy opens for editing. */
export function GroupsSection() {
  const { t } = useConsoleI18n();
  const id = useId();
  const [editing, setEditing] = useState<string>();
  const [name, setName] = useState('');
  const [priority, setPriority] = useState('0');
  const [added, setAdded] = useState<string>();
  const loading = useConsoleLoad((signal) => consoleCall<AdminGroups>('admin/groups', { signal }), []);
  const { value: data, reload } = loading;
  const adding = useConsoleAction();

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setAdded(undefined);
    const body: AdminGroupCreate = { name: name.trim(), priority: Number(priority) };
    const answer = await adding.run(() => consoleCall('admin/groups', { method: 'POST', body }));
    if (answer) {
      setAdded(t('groups.added', { name: body.name }));
      setName('');
      reload();
    }
  };

  const groups = [...(data?.groups ?? [])].sort((a, b) => b.priority - a.priority);
  const editedGroup = groups.find((group) => group.id === editing);
  return (
    <>
      <section className="card console-card console-wide" aria-labelledby={`${id}-title`}>
        <h1 id={`${id}-title`} className="card-title">
          {t('admin.groups')}
        </h1>
        <p>{t('groups.intro')}</p>
        <FailureAlert error={loading.error} />
        {data === undefined ? (
          loading.busy && <Spinner label={t('loading')} showLabel />
        ) : groups.length === 0 ? (
          <p>{t('groups.none')}</p>
        ) : (
          <ConsoleTable
            label={t('admin.groups')}
            columns={[
              t('groups.name'),
              t('groups.priority'),
              t('groups.members'),
              t('groups.codes'),
              t('groups.issuers'),
            ]}
            actions
            testId="groups"
          >
            {groups.map((group) => (
              <tr key={group.id}>
                <td>{group.name}</td>
                <td>{group.priority}</td>
                <td>{group.members}</td>
                <td>
                  {group.stored === null
                    ? t('groups.noPolicy')
                    : group.effective.enableECode
                      ? t('groups.codesOn', { minutes: group.effective.codeValidityMinutes })
                      : t('groups.codesOff')}
                </td>
                <td>
                  {group.issuers
                    .map((role) => t(role === 'admin' ? 'role.admin' : 'role.helpdesk'))
                    .join(', ') || t('none')}
                </td>
                <td>
                  <button
                    type="button"
                    className="btn btn-outline"
                    aria-expanded={editing === group.id}
                    onClick={() => setEditing(editing === group.id ? undefined : group.id)}
                  >
                    {t('groups.edit', { name: group.name })}
                  </button>
                </td>
              </tr>
            ))}
          </ConsoleTable>
        )}
      </section>
      {editedGroup && data && (
        <PolicyEditor
          key={editedGroup.id}
          group={editedGroup}
          defaults={data.defaults}
          onSaved={reload}
          onClose={() => setEditing(undefined)}
        />
      )}
      <section className="card console-card console-wide" aria-labelledby={`${id}-add`}>
        <h2 id={`${id}-add`}>{t('groups.add')}</h2>
        {added && (
          <Alert variant="success" announce>
            {added}
          </Alert>
        )}
        <form className="inline-form" onSubmit={(event) => void add(event)} noValidate>
          <div className="form-field">
            <label htmlFor={`${id}-name`}>{t('groups.name')}</label>
            <input
              id={`${id}-name`}
              value={name}
              maxLength={100}
              onChange={(event) => setName(event.target.value)}
            />
          </div>
          <div className="form-field">
            <label htmlFor={`${id}-priority`}>{t('groups.priority')}</label>
            <input
              id={`${id}-priority`}
              type="number"
              step={1}
              value={priority}
              onChange={(event) => setPriority(event.target.value)}
            />
          </div>
          <BusyButton type="submit" busy={adding.busy} busyLabel={t('working')} testId="group-add">
            {t('groups.addButton')}
          </BusyButton>
        </form>
        <FailureAlert error={adding.error} />
      </section>
    </>
  );
}
