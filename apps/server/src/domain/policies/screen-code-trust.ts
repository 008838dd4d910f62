import { isIP } from 'node:net';
import { CHANNEL_DELIVERY_MODE, type PolicyOptions } from '@dea/contract';
import { addressList, isAddressOrRange } from '../../net/address-ranges.js';
import type { Store } from '../../store/store.js';
import { registrationOptionsOf, registrationPolicyOf } from '../channels/channel-proof.js';
import type { DeviceRefusal, RememberedDevices } from '../page/remembered-devices.js';
import { sendsByChannel } from './policy.js';

/**
 * What the page's request says about where it comes from: the client address as the server
 * derives it (DEA_TRUST_PROXY) and the remembered-device cookie it carries, checked by `devices`.
 */
export interface PageRequest {
  clientAddress: string | null;
  deviceCookie: string | undefined;
  devices: Pick<RememberedDevices, 'check'>;
  /**
   * The person's stored "Channel Registration" options when the caller read them already, with
   * their "Self Service" policy in one statement (emergency-policy.ts); read here when absent.
   */
  registrationPolicy?: { stored: Record<string, unknown> | undefined };
}

/** Why a code may be shown on screen, or why not. */
export type ScreenCodeTrust =
  | { trusted: true; by: 'not-required' | 'network' | 'device' }
  | { trusted: false; device: DeviceRefusal };

/** Whether an entry is an IPv4 or IPv6 address or CIDR range (10.0.0.0/8, 2001:db8::/32). */
export function isTrustedNetwork(entry: string): boolean {
  return isIP(entry.split('/')[0] ?? '') !== 0 && isAddressOrRange(entry);
}

/** Whether an address is in one of the ranges (entries that are no address or range are passed over). */
export function inTrustedNetworks(ranges: readonly string[], address: string | null): boolean {
  const valid = ranges.filter(isTrustedNetwork);
  return address !== null && valid.length > 0 && addressList(valid)(address);
}

/**
 * The reason to trust a code shown on screen, one rule for every door that shows one:
 * when the person's "Channel Registration" policy sets screenCodeTrustedNetworks or
 * screenCodeRememberedDeviceDays, the request must come from one of those networks or carry a
 * remembered-device cookie of this person (remembered-devices.ts); without either option set,
 * nothing more is asked.
 */
export async function screenCodeTrust(
  services: { store: Store },
  userId: string,
  request: PageRequest,
): Promise<ScreenCodeTrust> {
  const policy =
    request.registrationPolicy === undefined
      ? await registrationPolicyOf(services.store, userId)
      : registrationOptionsOf(request.registrationPolicy.stored);
  const networks = policy.screenCodeTrustedNetworks;
  const days = policy.screenCodeRememberedDeviceDays;
  if (networks.length === 0 && days === 0) return { trusted: true, by: 'not-required' };
  if (inTrustedNetworks(networks, request.clientAddress)) return { trusted: true, by: 'network' };
  if (days === 0) return { trusted: false, device: 'none' };
  const device = await request.devices.check(userId, request.deviceCookie);
  return device.held ? { trusted: true, by: 'device' } : { trusted: false, device: device.refusal };
}

/**
 * The self-service policy as the page is to follow it for this request: a policy that shows codes
 * on screen, asked from where no reason to trust holds, sends them by channel instead (the page
 * then offers the person's channels, or says to call the help desk), and says so
 * (`screenCodeTrust: 'missing'`).
 */
export async function pagePolicy(
  services: { store: Store },
  userId: string,
  policy: PolicyOptions,
  request: PageRequest,
): Promise<{ options: PolicyOptions; screenCodeTrust?: 'missing'; trust?: ScreenCodeTrust }> {
  if (!policy.enableECode || sendsByChannel(policy)) return { options: policy };
  const trust = await screenCodeTrust(services, userId, request);
  if (trust.trusted) return { options: policy, trust };
  return {
    options: { ...policy, emergencyCodeDelivery: CHANNEL_DELIVERY_MODE },
    screenCodeTrust: 'missing',
    trust,
  };
}
