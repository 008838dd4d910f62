import {
  CONSOLE_ISSUER_ROLES,
  POLICY_CATEGORY_CHANNEL_REGISTRATION,
  POLICY_CATEGORY_HELP_DESK,
  POLICY_CATEGORY_SELF_SERVICE,
  type AdminGroup,
  type AdminPolicyChange,
  type PolicyOptions,
} from '@dea/contract';
import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../shared/components/alert';
import { consoleCall } from '../api/console-call';
import { useConsoleAction } from '../api/use-console-action';
import { BusyButton } from '../components/busy-button';
import { FailureAlert } from '../components/failure-alert';
import { useConsoleI18n } from '../i18n/console-i18n';

type Name = keyof PolicyOptions;
/** Each option of the emergency policy, its label and how it is typed in. */
const OPTIONS: readonly {
  name: Name;
  label: `policy.${Name}`;
  kind: 'boolean' | 'delivery' | 'number' | 'text';
  min?: number;
  max?: number;
}[] = [
  { name: 'enableECode', label: 'policy.enableECode', kind: 'boolean' },
  { name: 'emergencyCodeDelivery', label: 'policy.emergencyCodeDelivery', kind: 'delivery' },
  { name: 'codeLength', label: 'policy.codeLength', kind: 'number', min: 6, max: 64 },
  { name: 'codeAlphabet', label: 'policy.codeAlphabet', kind: 'text' },
  { name: 'codeValidityMinutes', label: 'policy.codeValidityMinutes', kind: 'number', min: 1, max: 10080 },
  { name: 'codeUses', label: 'policy.codeUses', kind: 'number', min: 1, max: 100 },
  { name: 'maxUnusedCodes', label: 'policy.maxUnusedCodes', kind: 'number', min: 1, max: 100 },
];

type Draft = Record<Name, string | boolean>;
const draftOf = (options: PolicyOptions): Draft =>
  Object.fromEntries(
    OPTIONS.map(({ name, kind }) => [name, kind === 'boolean' ? options[name] : String(options[name])]),
  ) as Draft;

/** What the form changed, typed as the API takes it. */
function changesOf(draft: Draft, effective: PolicyOptions): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const { name, kind } of OPTIONS) {
    const value = kind === 'number' ? Number(draft[name]) : draft[name];
    if (value !== effective[name]) changes[name] = value;
  }
  return changes;
}

/**
 * A group's emergency policy, every option with its default shown, and which console roles may
 * give its members a code. Only what changed is sent; the server checks each option and says why
 * one is refused.
 */
export function PolicyEditor({
  group,
  defaults,
  onSaved,
  onClose,
}: {
  group: AdminGroup;
  defaults: PolicyOptions;
  onSaved: () => void;
  onClose: () => void;
}) {
  const { t } = useConsoleI18n();
  const id = useId();
  const [draft, setDraft] = useState<Draft>(() => draftOf(group.effective));
  const [issuers, setIssuers] = useState<string[]>(group.issuers);
  // Codes on screen only with a reason to trust: ranges one per line, days a number.
  const [networks, setNetworks] = useState(group.screenCodeTrust.screenCodeTrustedNetworks.join('\n'));
  const [deviceDays, setDeviceDays] = useState(String(group.screenCodeTrust.screenCodeRememberedDeviceDays));
  const [saved, setSaved] = useState<string>();
  const saving = useConsoleAction();

  const defaultText = (name: Name): string => {
    const value = defaults[name];
    return typeof value === 'boolean'
      ? t(value ? 'yes' : 'no')
      : name === 'emergencyCodeDelivery'
        ? deliveryText(String(value))
        : String(value);
  };
  const deliveryText = (mode: string) =>
    t(mode === 'Channel' ? 'policy.deliveryChannel' : 'policy.deliveryDisplay');

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(undefined);
    const changes = changesOf(draft, group.effective);
    const issuersChanged = [...issuers].sort().join() !== [...group.issuers].sort().join();
    const trust: Record<string, unknown> = {};
    const networkList = networks.split(/[\s,]+/).filter((entry) => entry !== '');
    if (networkList.join() !== group.screenCodeTrust.screenCodeTrustedNetworks.join())
      trust.screenCodeTrustedNetworks = networkList;
    if (Number(deviceDays) !== group.screenCodeTrust.screenCodeRememberedDeviceDays)
      trust.screenCodeRememberedDeviceDays = Number(deviceDays);
    const trustChanged = Object.keys(trust).length > 0;
    if (Object.keys(changes).length === 0 && !issuersChanged && !trustChanged && group.stored !== null) {
      setSaved(t('policy.nothingChanged'));
      return;
    }
    const done = await saving.run(async () => {
      if (Object.keys(changes).length > 0 || group.stored === null) {
        const body: AdminPolicyChange = {
          category: POLICY_CATEGORY_SELF_SERVICE,
          options: Object.keys(changes).length > 0 ? changes : { enableECode: draft.enableECode },
        };
        await consoleCall(`admin/groups/${encodeURIComponent(group.id)}/policy`, { method: 'POST', body });
      }
      if (issuersChanged) {
        const body: AdminPolicyChange = { category: POLICY_CATEGORY_HELP_DESK, options: { issuers } };
        await consoleCall(`admin/groups/${encodeURIComponent(group.id)}/policy`, { method: 'POST', body });
      }
      if (trustChanged) {
        const body: AdminPolicyChange = { category: POLICY_CATEGORY_CHANNEL_REGISTRATION, options: trust };
        await consoleCall(`admin/groups/${encodeURIComponent(group.id)}/policy`, { method: 'POST', body });
      }
      return true;
    });
    if (done) {
      setSaved(t('policy.saved', { name: group.name }));
      onSaved();
    }
  };

  return (
    <section
      className="card console-card console-wide"
      aria-labelledby={`${id}-title`}
      data-testid="policy-editor"
    >
      <h2 id={`${id}-title`}>{t('policy.title', { name: group.name })}</h2>
      {group.stored === null && <Alert variant="info">{t('policy.noneYet')}</Alert>}
      <form onSubmit={(event) => void save(event)} noValidate>
        <div className="policy-grid">
          {OPTIONS.map(({ name, label, kind, min, max }) => {
            const hint = `${id}-${name}-hint`;
            const hintText = (
              <p id={hint} className="field-hint">
                {t('policy.default', { value: defaultText(name) })}
              </p>
            );
            if (kind === 'boolean')
              return (
                <div className="form-field" key={name}>
                  <label className="choice">
                    <input
                      type="checkbox"
                      checked={draft[name] === true}
                      aria-describedby={hint}
                      onChange={(event) => setDraft({ ...draft, [name]: event.target.checked })}
                    />
                    {t(label)}
                  </label>
                  {hintText}
                </div>
              );
            return (
              <div className="form-field" key={name}>
                <label htmlFor={`${id}-${name}`}>{t(label)}</label>
                {hintText}
                {kind === 'delivery' ? (
                  <select
                    id={`${id}-${name}`}
                    value={String(draft[name])}
                    aria-describedby={hint}
                    onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
                  >
                    <option value="Display">{deliveryText('Display')}</option>
                    <option value="Channel">{deliveryText('Channel')}</option>
                  </select>
                ) : (
                  <input
                    id={`${id}-${name}`}
                    type={kind === 'number' ? 'number' : 'text'}
                    min={min}
                    max={max}
                    step={kind === 'number' ? 1 : undefined}
                    value={String(draft[name])}
                    aria-describedby={hint}
                    dir={kind === 'text' ? 'ltr' : undefined}
                    onChange={(event) => setDraft({ ...draft, [name]: event.target.value })}
                  />
                )}
              </div>
            );
          })}
        </div>
        <fieldset className="form-field">
          <legend>{t('policy.issuers')}</legend>
          <p className="field-hint">{t('policy.issuersHint')}</p>
          {CONSOLE_ISSUER_ROLES.map((role) => (
            <label className="choice" key={role}>
              <input
                type="checkbox"
                checked={issuers.includes(role)}
                onChange={(event) =>
                  setIssuers(
                    event.target.checked ? [...issuers, role] : issuers.filter((each) => each !== role),
                  )
                }
              />
              {t(role === 'admin' ? 'role.admin' : 'role.helpdesk')}
            </label>
          ))}
        </fieldset>
        <fieldset className="form-field">
          <legend>{t('policy.screenCodeTrust')}</legend>
          <p className="field-hint">{t('policy.screenCodeTrustHint')}</p>
          <div className="form-field">
            <label htmlFor={`${id}-networks`}>{t('policy.screenCodeTrustedNetworks')}</label>
            <p id={`${id}-networks-hint`} className="field-hint">
              {t('policy.screenCodeTrustedNetworksHint')}
            </p>
            <textarea
              id={`${id}-networks`}
              rows={3}
              dir="ltr"
              value={networks}
              aria-describedby={`${id}-networks-hint`}
              onChange={(event) => setNetworks(event.target.value)}
            />
          </div>
          <div className="form-field">
            <label htmlFor={`${id}-device-days`}>{t('policy.screenCodeRememberedDeviceDays')}</label>
            <input
              id={`${id}-device-days`}
              type="number"
              min={0}
              max={400}
              step={1}
              value={deviceDays}
              onChange={(event) => setDeviceDays(event.target.value)}
            />
          </div>
        </fieldset>
        {saved && (
          <Alert variant="success" announce testId="policy-saved">
            {saved}
          </Alert>
        )}
        <FailureAlert error={saving.error} />
        <div className="button-row">
          <BusyButton type="submit" busy={saving.busy} busyLabel={t('saving')} testId="policy-save">
            {t('policy.save')}
          </BusyButton>
          <button type="button" className="btn btn-outline" onClick={onClose}>
            {t('close')}
          </button>
        </div>
      </form>
    </section>
  );
}
