import {
  CHANNEL_GROUPS,
  CHANNEL_GROUP_OF_SEND_TYPE,
  CHANNEL_KEYS,
  SEND_TYPE_OF_CHANNEL,
  splitChannelValue,
  type ChannelGroup,
  type ChannelKey,
  type ChannelMap,
  type SendType,
} from '@dea/contract';

export interface ChannelOption {
  key: ChannelKey;
  sendType: SendType;
  /** What the user sees: the masked recipient. */
  masked: string;
  /** What goes back to the server: the opaque recipient reference. */
  recipient: string;
}

export interface ChannelGroupOptions {
  group: ChannelGroup;
  options: ChannelOption[];
}

/** One dropdown per channel type that has at least one channel, in the spec's order. */
export function channelGroups(map: ChannelMap): ChannelGroupOptions[] {
  const options: ChannelOption[] = CHANNEL_KEYS.flatMap((key) => {
    const value = map[key];
    if (!value) return [];
    const { masked, reference } = splitChannelValue(value);
    return [{ key, sendType: SEND_TYPE_OF_CHANNEL[key], masked, recipient: reference }];
  });
  return CHANNEL_GROUPS.map((group) => ({
    group,
    options: options.filter((option) => CHANNEL_GROUP_OF_SEND_TYPE[option.sendType] === group),
  })).filter((entry) => entry.options.length > 0);
}
