import { newId, randomToken } from '../../crypto/ids.js';
import { constantTimeEqual, keyedHash } from '../../crypto/keyed-hash.js';
import type { Store, User } from '../../store/store.js';
import { registrationPolicyOf } from '../channels/channel-proof.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A device id and its secret, as the cookie carries them: `<id>.<secret>`. */
const COOKIE_VALUE = /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{16,128})$/;

/** What deciding on a remembered device needs. */
export interface RememberedDeviceServices {
  store: Store;
  /** Keys of the cookie's keyed hash: the current secret's first, then the previous one's. */
  hashKeys: readonly Buffer[];
  now: () => number;
}

/** Why a cookie is no remembered device of the person: said in the audit entry, never to the browser. */
export type DeviceRefusal = 'none' | 'unknown' | 'other-user' | 'tampered' | 'expired' | 'forgotten';

/** Who forgets a person's devices, and from where. */
export interface DeviceForgetter {
  actor: string;
  clientAddress: string | null;
}

/**
 * Remembered devices: a browser in which a person opened a registration session (a
 * strong sign-in) gets a cookie, for screenCodeRememberedDeviceDays of their "Channel
 * Registration" policy, that is one reason to trust a code shown on screen there
 * (screen-code-trust.ts). The cookie is `<device id>.<secret>`; the store keeps the row bound to
 * the person and only a keyed hash (the service's keys, rotated like the others) of the person,
 * the id and the secret, so a cookie is worth nothing for another person, altered, expired or
 * once forgotten. The one place devices are remembered, checked and forgotten, for every door.
 */
export class RememberedDevices {
  constructor(private readonly services: RememberedDeviceServices) {}

  /**
   * Remembers the browser of a registration session just opened (`method`), when the person's
   * policy remembers devices; answers the cookie's value and end, or undefined when it does not.
   */
  async remember(
    person: { user: User; clientAddress: string | null },
    method: string,
  ): Promise<{ token: string; expiresAt: number } | undefined> {
    const { store, now } = this.services;
    const days = (await registrationPolicyOf(store, person.user.id)).screenCodeRememberedDeviceDays;
    if (days === 0) return undefined;
    const id = newId();
    const secret = randomToken(32);
    const at = now();
    const expiresAt = at + days * DAY_MS;
    await store.rememberedDevices.add({
      id,
      userId: person.user.id,
      tokenHash: this.hash(this.services.hashKeys[0]!, person.user.id, id, secret),
      createdAt: at,
      expiresAt,
    });
    await store.audit.append(
      {
        event: 'device.remembered',
        userId: person.user.id,
        actor: person.user.id,
        clientAddress: person.clientAddress,
        details: { deviceId: id, method, expiresAt: new Date(expiresAt).toISOString() },
      },
      at,
    );
    return { token: `${id}.${secret}`, expiresAt };
  }

  /** Whether the cookie is a remembered device of this person now; else why not. */
  async check(
    userId: string,
    cookie: string | undefined,
  ): Promise<{ held: true; deviceId: string } | { held: false; refusal: DeviceRefusal }> {
    if (cookie === undefined || cookie === '') return { held: false, refusal: 'none' };
    const parts = COOKIE_VALUE.exec(cookie);
    if (parts === null) return { held: false, refusal: 'tampered' };
    const [, id = '', secret = ''] = parts;
    const device = await this.services.store.rememberedDevices.find(id);
    if (device === undefined) return { held: false, refusal: 'unknown' };
    if (device.userId !== userId) return { held: false, refusal: 'other-user' };
    const right = this.services.hashKeys.some((key) =>
      constantTimeEqual(this.hash(key, userId, id, secret), device.tokenHash),
    );
    if (!right) return { held: false, refusal: 'tampered' };
    if (device.forgottenAt !== null) return { held: false, refusal: 'forgotten' };
    if (device.expiresAt <= this.services.now()) return { held: false, refusal: 'expired' };
    return { held: true, deviceId: id };
  }

  /**
   * Forgets every remembered device of the person: the one function of every door (the person's
   * registration session, the help desk, dea user forget-devices). Answers how many were forgotten.
   */
  async forgetAll(user: User, by: DeviceForgetter): Promise<number> {
    const { store, now } = this.services;
    const at = now();
    const count = await store.rememberedDevices.forgetAll(user.id, at);
    await store.audit.append(
      {
        event: 'device.forgotten',
        userId: user.id,
        actor: by.actor,
        clientAddress: by.clientAddress,
        details: { count },
      },
      at,
    );
    return count;
  }

  private hash(key: Buffer, userId: string, id: string, secret: string): string {
    return keyedHash(key, 'remembered-device', userId, id, secret);
  }
}
