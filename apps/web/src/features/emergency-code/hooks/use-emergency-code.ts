import {
  CHANNEL_DELIVERY_MODE,
  ErrorNumber,
  type ChannelMap,
  type CreatedCode,
  type PolicyResult,
} from '@dea/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { EnvelopeError } from '../../../api/api-error';
import { codeExpiry, showsCodeOnScreen } from '../../../app/code-on-load';
import { failureMessage } from '../../../api/failure-message';
import { useReportedFailure } from '../../../api/use-reported-failure';
import {
  createAndSendCode,
  createCode,
  revokeCode,
  getPolicy,
  queryAvailableChannels,
} from '../../../api/methods';
import { usePromise, valueOf, type PromiseState } from '../../../shared/hooks/use-promise';
import type { PageMessage } from '../../../shared/i18n/page-message';
import { channelGroups, type ChannelGroupOptions, type ChannelOption } from '../channel-options';
import { forgetStoredCode, readStoredCode, readStoredExpiry, storeCode } from '../../../shared/code-storage';

export type CodeView =
  | { kind: 'loading' }
  | { kind: 'notAuthorized' }
  | {
      kind: 'channels';
      groups: ChannelGroupOptions[];
      /** Codes would be shown on screen, but not from here: no trusted network, no remembered device. */
      untrusted: boolean;
    }
  | {
      kind: 'code';
      code: CreatedCode | undefined;
      /** When the code on screen stops working (ms since the epoch), from the policy's validity. */
      expiresAt: number | undefined;
      /** How many times the code works, from the policy. */
      uses: number;
      creating: boolean;
      storeFull: boolean;
      /** After error 148: when the oldest unused code expires and a new one can be asked for (ms). */
      nextFreeAt?: number | undefined;
    }
  /** A failure stopped the startup; its message is in the page's error area. */
  | { kind: 'unavailable' };

export type SendResult = { ok: true; to: string } | { ok: false; message: string };

/** The last code sent: its masked recipient and until when it works (ms; unknown without the policy's validity). */
export interface SentCode {
  to: string;
  validUntil: number | undefined;
}

export interface EmergencyCode {
  view: CodeView;
  sending: boolean;
  sendResult: SendResult | undefined;
  /** Stays on the page after the result is closed, so a person sees where the code went. */
  lastSent: SentCode | undefined;
  requestNewCode: () => void;
  send: (option: ChannelOption) => void;
  dismissResult: () => void;
}

type CodeState = Omit<Extract<CodeView, { kind: 'code' }>, 'kind' | 'uses'>;

/** Error 148's result (the contract's CodeStoreFullResult): when a new code can be created (ms). */
function nextFreeAtOf(result: unknown): number | undefined {
  const text = (result as { nextFreeAt?: unknown } | null)?.nextFreeAt;
  const time = typeof text === 'string' ? Date.parse(text) : Number.NaN;
  return Number.isFinite(time) ? time : undefined;
}

/** Where the startup stands, from what has loaded (spec section 4). */
function viewOf(
  userId: string | null | undefined,
  policy: PromiseState<PolicyResult>,
  channels: PromiseState<ChannelMap>,
  code: CodeState | undefined,
): CodeView {
  if (userId === null || policy.state === 'rejected' || channels.state === 'rejected')
    return { kind: 'unavailable' };
  if (policy.state === 'fulfilled' && !policy.value.options.enableECode) return { kind: 'notAuthorized' };
  if (channels.state === 'fulfilled')
    return {
      kind: 'channels',
      groups: channelGroups(channels.value),
      untrusted: policy.state === 'fulfilled' && policy.value.screenCodeTrust === 'missing',
    };
  if (code !== undefined && policy.state === 'fulfilled')
    return { kind: 'code', ...code, uses: policy.value.options.codeUses };
  return { kind: 'loading' };
}

export interface EmergencyCodeInputs {
  /** The signed-in user; undefined while unknown, null when it could not be loaded. */
  userId: string | null | undefined;
  /** Whether the steps before the policy (texts, branding) are done: it is asked for only then. */
  ready: boolean;
  /** The locale sent with code requests; undefined until the language is chosen. */
  locale: string | undefined;
  report: (message: PageMessage) => void;
  clearReport: () => void;
}

/**
 * The policy, then channels or a code: the last steps of spec section 4, taken once the page is
 * `ready` (its texts and branding are in).
 */
export function useEmergencyCode({
  userId,
  ready,
  locale,
  report,
  clearReport,
}: EmergencyCodeInputs): EmergencyCode {
  const [code, setCode] = useState<CodeState>();
  const [sending, setSending] = useState(false);
  const sendingNow = useRef(false);
  const [sendResult, setSendResult] = useState<SendResult>();
  const [lastSent, setLastSent] = useState<SentCode>();
  const creating = useRef<Promise<void> | undefined>(undefined);
  const callbacks = useRef({ report, clearReport });
  callbacks.current = { report, clearReport };

  const policy = usePromise(
    (signal) => (ready && typeof userId === 'string' ? getPolicy(userId, signal) : undefined),
    [ready, userId],
  );
  const options = valueOf(policy)?.options;
  const byChannel = options?.enableECode === true && options.emergencyCodeDelivery === CHANNEL_DELIVERY_MODE;
  const onScreen = showsCodeOnScreen(options);
  const validityMinutes = options?.codeValidityMinutes;
  const channels = usePromise(
    (signal) =>
      byChannel && typeof userId === 'string' ? queryAvailableChannels(userId, signal) : undefined,
    [byChannel, userId],
  );
  useReportedFailure(policy, 'The emergency-code policy could not be loaded', report);
  useReportedFailure(channels, 'The channels could not be loaded', report);

  const view = viewOf(userId, policy, channels, onScreen ? code : undefined);

  const obtainCode = useCallback(
    (fresh: boolean): Promise<void> => {
      if (typeof userId !== 'string' || locale === undefined) return Promise.resolve();
      // One request at a time: a double click or a re-run effect must not issue two codes.
      if (creating.current) return creating.current;
      const stored = readStoredCode();
      if (stored && !fresh) {
        setCode({ code: stored, expiresAt: readStoredExpiry(), creating: false, storeFull: false });
        return Promise.resolve();
      }
      forgetStoredCode();
      setCode({ code: undefined, expiresAt: undefined, creating: true, storeFull: false });
      // The code being replaced is taken back first: it stops working, and its slot under the
      // policy's limit is free for the new one. A failed revocation does not stop the new code.
      const revoked = stored?.id
        ? revokeCode(userId, stored.id).catch((error: unknown) => {
            console.error('The code on screen could not be taken back', error);
          })
        : Promise.resolve();
      const pending = revoked
        .then(() => createCode(userId, locale, !fresh))
        .then(
          (code) => {
            const expiresAt = codeExpiry(validityMinutes);
            storeCode(code, expiresAt);
            setCode({ code, expiresAt, creating: false, storeFull: false });
          },
          (error: unknown) => {
            console.error('No emergency code could be created', error);
            const storeFull =
              error instanceof EnvelopeError && error.errorNumber === ErrorNumber.codeStoreFull;
            const message = failureMessage(error);
            if (message) callbacks.current.report(message);
            setCode({
              code: undefined,
              expiresAt: undefined,
              creating: false,
              storeFull,
              nextFreeAt:
                storeFull && error instanceof EnvelopeError ? nextFreeAtOf(error.result) : undefined,
            });
          },
        )
        .finally(() => {
          creating.current = undefined;
        });
      creating.current = pending;
      return pending;
    },
    [userId, locale, validityMinutes],
  );

  const hasCode = code !== undefined;
  useEffect(() => {
    if (onScreen && !hasCode) void obtainCode(false);
  }, [onScreen, hasCode, obtainCode]);

  const requestNewCode = useCallback(() => {
    callbacks.current.clearReport();
    void obtainCode(true);
  }, [obtainCode]);

  const send = useCallback(
    (option: ChannelOption) => {
      if (typeof userId !== 'string' || locale === undefined) return;
      // One send at a time: a second choice while the first is on its way would send two codes.
      if (sendingNow.current) return;
      sendingNow.current = true;
      callbacks.current.clearReport();
      setSendResult(undefined);
      setSending(true);
      createAndSendCode(userId, option.sendType, option.recipient, locale)
        .then(
          (to) => {
            setSendResult({ ok: true, to });
            setLastSent({ to, validUntil: codeExpiry(validityMinutes) });
          },
          (error: unknown) => {
            if (error instanceof EnvelopeError) setSendResult({ ok: false, message: error.serverMessage });
            // Spec section 8: a send that fails over HTTP is only logged.
            else console.error('The emergency code could not be sent', error);
          },
        )
        .finally(() => {
          sendingNow.current = false;
          setSending(false);
        });
    },
    [userId, locale, validityMinutes],
  );

  const dismissResult = useCallback(() => setSendResult(undefined), []);

  return { view, sending, sendResult, lastSent, requestNewCode, send, dismissResult };
}
