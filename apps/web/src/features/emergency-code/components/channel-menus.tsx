import { isPersonalChannel } from '@dea/contract';
import { Icon } from '../../../shared/components/icons';
import { Menu } from '../../../shared/components/menu';
import { useI18n } from '../../../shared/i18n/i18n-context';
import type { ChannelGroupOptions, ChannelOption } from '../channel-options';

/**
 * One icon dropdown per channel type; choosing a masked recipient, labelled work or personal, sends a
 * code there.
 */
export function ChannelMenus({
  groups,
  sending,
  onSend,
}: {
  groups: readonly ChannelGroupOptions[];
  /** A send is on its way: the menus wait for its answer, so no second code goes out. */
  sending: boolean;
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
              disabled={sending}
              buttonClassName="btn btn-outline channel-button"
              buttonContent={
                <>
                  <Icon name={group} />
                  <span>{label}</span>
                </>
              }
              entries={options.map((option) => ({
                id: option.key,
                label: (
                  <>
                    <span className="recipient-kind">
                      {t(
                        isPersonalChannel(option.key) ? 'content.recipientPersonal' : 'content.recipientWork',
                      )}
                    </span>{' '}
                    <bdi>{option.masked}</bdi>
                  </>
                ),
                onSelect: () => onSend(option),
              }))}
            />
          );
        })}
      </div>
    </>
  );
}
