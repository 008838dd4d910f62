import type { Channel } from '../../store/store.js';

/** A channel its person registered, to be told to their other channels (domain/channels/channel-proof.ts). */
export interface ChannelChangeNotice {
  userId: string;
  /** The new channel: it is not told, the others are. */
  channel: Channel;
  /** The link that undoes the registration and alerts the help desk. */
  undoUrl: string;
  language: string;
  timeZone: string;
  at: number;
  /** Whoever registered it asked from there; null for an operator's command. */
  clientAddress: string | null;
}

/**
 * Telling a person's other channels that a channel was registered: a port the domain owns,
 * implemented by delivery/channel-notices.ts. Answers once every channel was tried; each outcome
 * is audited (notice.sent, notice.failed), a failure never fails the registration.
 */
export interface ChannelChangeNotices {
  tell(notice: ChannelChangeNotice): Promise<void>;
}
