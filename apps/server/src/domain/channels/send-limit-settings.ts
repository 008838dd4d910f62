import Type from 'typebox';
import type { SettingValues } from '../../setting-values.js';
import type { SendLimitSettings } from './send-limits.js';

/** The abuse limits of sending codes (ADR 0006). */
export const sendLimitSettings = {
  DEA_SEND_LIMIT_PER_USER: {
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 5 }),
    doc: 'Codes one user may have sent within DEA_SEND_LIMIT_USER_WINDOW_MINUTES (error 140 beyond).',
  },
  DEA_SEND_LIMIT_USER_WINDOW_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 10_080, default: 10 }),
    doc: 'Window of the per-user send limit, counted from the first send in it.',
  },
  DEA_SEND_LIMIT_PER_RECIPIENT: {
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 10 }),
    doc: 'Codes sent to one phone number, address or handle within its window, whoever asks.',
  },
  DEA_SEND_LIMIT_RECIPIENT_WINDOW_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 10_080, default: 60 }),
    doc: 'Window of the per-recipient send limit.',
  },
  DEA_SEND_LIMIT_PER_ADDRESS: {
    schema: Type.Integer({ minimum: 1, maximum: 100_000, default: 20 }),
    doc: 'Codes sent on requests from one client address within its window, for all users.',
  },
  DEA_SEND_LIMIT_ADDRESS_WINDOW_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 10_080, default: 10 }),
    doc: 'Window of the per-client-address send limit.',
  },
  DEA_SEND_LIMIT_PER_CHANNEL_TYPE: {
    schema: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1000 }),
    doc: 'Global budget: codes sent over one channel type (sms, smtp, TELEPHONE, TWITTER) within its window, on all instances.',
  },
  DEA_SEND_LIMIT_CHANNEL_TYPE_WINDOW_MINUTES: {
    schema: Type.Integer({ minimum: 1, maximum: 10_080, default: 60 }),
    doc: 'Window of the global budget per channel type.',
  },
} as const;

const MINUTE = 60_000;

const rule = (max: number, windowMinutes: number) => ({ max, windowMs: windowMinutes * MINUTE });

/** The send limits of the typed setting values. */
export function sendLimitsOf(values: SettingValues<typeof sendLimitSettings>): SendLimitSettings {
  return {
    perUser: rule(values.DEA_SEND_LIMIT_PER_USER, values.DEA_SEND_LIMIT_USER_WINDOW_MINUTES),
    perRecipient: rule(values.DEA_SEND_LIMIT_PER_RECIPIENT, values.DEA_SEND_LIMIT_RECIPIENT_WINDOW_MINUTES),
    perAddress: rule(values.DEA_SEND_LIMIT_PER_ADDRESS, values.DEA_SEND_LIMIT_ADDRESS_WINDOW_MINUTES),
    perChannelType: rule(
      values.DEA_SEND_LIMIT_PER_CHANNEL_TYPE,
      values.DEA_SEND_LIMIT_CHANNEL_TYPE_WINDOW_MINUTES,
    ),
  };
}
