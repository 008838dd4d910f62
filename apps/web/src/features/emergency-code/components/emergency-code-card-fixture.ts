import { text } from '../../../testing/test-messages';

/** A recipient entry as the menu names it: work or personal, then the masked recipient. */
export const work = (masked: string) => `${text('en', 'content.recipientWork')} ${masked}`;
export const personal = (masked: string) => `${text('en', 'content.recipientPersonal')} ${masked}`;

/** The channels the fake server offers in these tests: masked recipient and reference, by key. */
export const CHANNELS = {
  mobile: '+49 *** ***12,ref-1',
  personalMobile: '+49 *** ***34,ref-2',
  email: 'c***@example.com,ref-3',
  telephone: '+49 30 ***56,ref-5',
  personalTwitter: '@ch***,ref-8',
};
