import { SEND_TYPE_OF_CHANNEL, type ChannelKey } from '@dea/contract';

/**
 * What the browser may see of an address: enough to recognise it, never enough to use it.
 */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/[^\d]/g, '');
  const country = phone.trim().startsWith('+') ? `+${digits.slice(0, 2)} ` : '';
  return `${country}*** ***${digits.slice(-2)}`;
}

export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const host = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${local.slice(0, 1)}***@${host.slice(0, 1)}***${tld}`;
}

export function maskHandle(handle: string): string {
  const name = handle.replace(/^@/, '');
  return `@${name.slice(0, 2)}***`;
}

export function maskAddress(key: ChannelKey, address: string): string {
  switch (SEND_TYPE_OF_CHANNEL[key]) {
    case 'sms':
    case 'TELEPHONE':
      return maskPhone(address);
    case 'smtp':
      return maskEmail(address);
    case 'TWITTER':
      return maskHandle(address);
  }
}
