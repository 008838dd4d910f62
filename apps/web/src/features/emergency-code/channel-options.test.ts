import { describe, expect, it } from 'vitest';
import { channelGroups } from './channel-options';

describe('channelGroups', () => {
  it('groups channels into one dropdown per type, showing only the masked part', () => {
    const groups = channelGroups({
      personalTwitter: '@ch***,ref-8',
      email: 'c***@example.com,ref-3',
      mobile: '+49 *** ***12,ref-1',
      personalMobile: '+49 *** ***34,ref-2',
      telephone: '+49 30 ***56,ref-5',
    });
    expect(groups.map((group) => group.group)).toEqual(['sms', 'email', 'telephone', 'twitter']);
    expect(groups[0]?.options).toEqual([
      { key: 'mobile', sendType: 'sms', masked: '+49 *** ***12', recipient: 'ref-1' },
      { key: 'personalMobile', sendType: 'sms', masked: '+49 *** ***34', recipient: 'ref-2' },
    ]);
    expect(groups[1]?.options[0]).toMatchObject({ sendType: 'smtp', masked: 'c***@example.com' });
    expect(groups[2]?.options[0]).toMatchObject({ sendType: 'TELEPHONE' });
    expect(groups[3]?.options[0]).toMatchObject({ key: 'personalTwitter', sendType: 'TWITTER' });
  });

  it('has no dropdown without channels', () => {
    expect(channelGroups({})).toEqual([]);
    expect(channelGroups({ mobile: '' })).toEqual([]);
  });
});
