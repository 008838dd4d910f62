import { Icon } from '../../../shared/components/icons';
import { Menu } from '../../../shared/components/menu';
import { useI18n } from '../../../shared/i18n/i18n-context';
import type { ChannelGroupOptions, ChannelOption } from '../channel-options';

/** One icon dropdown per channel type; choosing a masked recipient sends a code there. */
export function ChannelMenus({
  groups,
  onSend,
}: {
  groups: readonly ChannelGroupOptions[];
  onSend: (option: ChannelOption) => void;
}) {
  const { t } = useI18n();
  return (
    <>
      <p className="channel-intro">{t('content.chooseRecipient')}</p>
      <div className="channel-menus">
        {groups.map(({ group, options }) => {
          const label = t(`content.channel.${group}`);
          return (
            <Menu
              key={group}
              label={label}
              labelIsVisible
              testId={`channel-${group}`}
              buttonClassName="btn btn-outline channel-button"
              buttonContent={
                <>
                  <Icon name={group} />
                  <span>{label}</span>
                </>
              }
              entries={options.map((option) => ({
                id: option.key,
                label: <bdi>{option.masked}</bdi>,
                onSelect: () => onSend(option),
              }))}
            />
          );
        })}
      </div>
    </>
  );
}
