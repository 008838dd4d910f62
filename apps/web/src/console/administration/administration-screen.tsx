import { useConsoleI18n } from '../i18n/console-i18n';
import { hrefOf } from '../shell/console-route';
import { BrandingSection } from './branding-section';
import { GroupsSection } from './groups-section';
import { ServiceKeysSection } from './service-keys-section';
import { SettingsSection } from './settings-section';
import { TextsSection } from './texts-section';

const SECTIONS = {
  groups: { title: 'admin.groups', Section: GroupsSection },
  branding: { title: 'admin.branding', Section: BrandingSection },
  texts: { title: 'admin.texts', Section: TextsSection },
  'service-keys': { title: 'admin.serviceKeys', Section: ServiceKeysSection },
  settings: { title: 'admin.settings', Section: SettingsSection },
} as const;
type SectionName = keyof typeof SECTIONS;

const isSection = (name: string | undefined): name is SectionName =>
  name !== undefined && Object.hasOwn(SECTIONS, name);

/** Administration: groups and policies, branding, message texts, service keys, and the settings in effect (read-only). */
export function AdministrationScreen({ section }: { section: string | undefined }) {
  const { t } = useConsoleI18n();
  const current: SectionName = isSection(section) ? section : 'groups';
  const { Section } = SECTIONS[current];
  return (
    <div className="console-stack console-wide">
      <nav aria-label={t('admin.sections')} className="section-nav">
        <ul>
          {(Object.keys(SECTIONS) as SectionName[]).map((name) => (
            <li key={name}>
              <a href={hrefOf('administration', name)} aria-current={name === current ? 'page' : undefined}>
                {t(SECTIONS[name].title)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <Section />
    </div>
  );
}
