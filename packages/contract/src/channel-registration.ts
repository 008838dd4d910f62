import Type from 'typebox';
import { SEND_TYPES } from './channels.js';

/**
 * The policy category that says how a group's members register their own channels (issue 32):
 * kept apart from "Self Service", whose options the emergency page reads (spec section 7).
 */
export const POLICY_CATEGORY_CHANNEL_REGISTRATION = 'Channel Registration';

export const ChannelRegistrationPolicyOptions = Type.Object(
  {
    registrationCoolingHours: Type.Integer({
      minimum: 0,
      maximum: 720,
      description: 'Hours a newly registered channel waits before it may receive emergency codes; 0: none',
    }),
    registrationChannelTypes: Type.Array(
      Type.Union([
        Type.Literal('sms'),
        Type.Literal('smtp'),
        Type.Literal('TELEPHONE'),
        Type.Literal('TWITTER'),
      ]),
      {
        maxItems: SEND_TYPES.length,
        uniqueItems: true,
        description: 'The send types a member may register themself; empty: none',
      },
    ),
    registrationMaxChannels: Type.Integer({
      minimum: 0,
      maximum: 8,
      description: 'How many channels a member may hold that they registered themself',
    }),
    reproveAfterDays: Type.Integer({
      minimum: 0,
      maximum: 3650,
      description: 'Days after which a registered address must be proven again; 0: never',
    }),
  },
  { additionalProperties: false },
);
export type ChannelRegistrationPolicyOptions = Type.Static<typeof ChannelRegistrationPolicyOptions>;

/** What a group without this policy gets. */
export const DEFAULT_CHANNEL_REGISTRATION_POLICY: ChannelRegistrationPolicyOptions = {
  registrationCoolingHours: 24,
  registrationChannelTypes: [...SEND_TYPES],
  registrationMaxChannels: 4,
  reproveAfterDays: 0,
};
