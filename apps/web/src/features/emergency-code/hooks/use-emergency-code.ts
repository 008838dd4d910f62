import { CHANNEL_DELIVERY_MODE, ErrorNumber, type CreatedCode, type PolicyOptions } from '@dea/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { EnvelopeError } from '../../../api/api-error';
import { failureMessage } from '../../../api/failure-message';
import { createAndSendCode, createCode, getPolicy, queryAvailableChannels } from '../../../api/methods';
import type { PageMessage } from '../../../shared/i18n/page-message';
import { channelGroups, type ChannelGroupOptions, type ChannelOption } from '../channel-options';
import { forgetStoredCode, readStoredCode, storeCode } from '../../../shared/code-storage';

export type CodeView =
  | { kind: 'loading' }
  | { kind: 'notAuthorized' }
  | { kind: 'channels'; groups: ChannelGroupOptions[] }
  | { kind: 'code'; code: CreatedCode | undefined; creating: boolean; storeFull: boolean }
  /** A failure stopped the startup; its message is in the page's error area. */
  | { kind: 'unavailable' };

export type SendResult = { ok: true; to: string } | { ok: false; message: string };

export interface EmergencyCode {
  view: CodeView;
  sending: boolean;
  sendResult: SendResult | undefined;
  requestNewCode: () => void;
  send: (option: ChannelOption) => void;
  dismissResult: () => void;
}

export interface EmergencyCodeInputs {
  /** The signed-in user; undefined while unknown, null when it could not be loaded. */
  userId: string | null | undefined;
  /** The locale sent with code requests; undefined until the language is chosen. */
  locale: string | undefined;
  report: (message: PageMessage) => void;
  clearReport: () => void;
}

/**
 * The policy, then channels or a code (spec section 4). The policy needs only the user, so it is
 * asked for while the language is still being chosen; a code needs the language's locale.
 */
export function useEmergencyCode({
  userId,
  locale,
  report,
  clearReport,
}: EmergencyCodeInputs): EmergencyCode {
  const [policy, setPolicy] = useState<PolicyOptions>();
  const [view, setView] = useState<CodeView>({ kind: 'loading' });
  const [sending, setSending] = useState(false);
  const [sendResult, setSendResult] = useState<SendResult>();
  const creating = useRef<Promise<void> | undefined>(undefined);
  const callbacks = useRef({ report, clearReport });
  callbacks.current = { report, clearReport };

  const fail = useCallback((error: unknown, what: string) => {
    console.error(what, error);
    const message = failureMessage(error);
    if (message) callbacks.current.report(message);
    setView({ kind: 'unavailable' });
  }, []);

  useEffect(() => {
    if (userId === undefined) return;
    if (userId === null) {
      setView({ kind: 'unavailable' });
      return;
    }
    let current = true;
    getPolicy(userId).then(
      (options) => {
        if (!current) return;
        setPolicy(options);
        if (!options.enableECode) setView({ kind: 'notAuthorized' });
      },
      (error: unknown) => current && fail(error, 'The emergency-code policy could not be loaded'),
    );
    return () => {
      current = false;
    };
  }, [userId, fail]);

  const byChannel = policy?.enableECode === true && policy.emergencyCodeDelivery === CHANNEL_DELIVERY_MODE;
  const onScreen = policy?.enableECode === true && policy.emergencyCodeDelivery !== CHANNEL_DELIVERY_MODE;

  useEffect(() => {
    if (!byChannel || typeof userId !== 'string') return;
    let current = true;
    queryAvailableChannels(userId).then(
      (map) => current && setView({ kind: 'channels', groups: channelGroups(map) }),
      (error: unknown) => current && fail(error, 'The channels could not be loaded'),
    );
    return () => {
      current = false;
    };
  }, [byChannel, userId, fail]);

  const obtainCode = useCallback(
    (fresh: boolean): Promise<void> => {
      if (typeof userId !== 'string' || locale === undefined) return Promise.resolve();
      // One request at a time: a double click or a re-run effect must not issue two codes.
      if (creating.current) return creating.current;
      if (fresh) forgetStoredCode();
      const stored = readStoredCode();
      if (stored) {
        setView({ kind: 'code', code: stored, creating: false, storeFull: false });
        return Promise.resolve();
      }
      setView({ kind: 'code', code: undefined, creating: true, storeFull: false });
      const pending = createCode(userId, locale)
        .then(
          (code) => {
            storeCode(code);
            setView({ kind: 'code', code, creating: false, storeFull: false });
          },
          (error: unknown) => {
            console.error('No emergency code could be created', error);
            const storeFull =
              error instanceof EnvelopeError && error.errorNumber === ErrorNumber.codeStoreFull;
            const message = failureMessage(error);
            if (message) callbacks.current.report(message);
            setView({ kind: 'code', code: undefined, creating: false, storeFull });
          },
        )
        .finally(() => {
          creating.current = undefined;
        });
      creating.current = pending;
      return pending;
    },
    [userId, locale],
  );

  const hasCodeView = view.kind === 'code';
  useEffect(() => {
    if (onScreen && !hasCodeView) void obtainCode(false);
  }, [onScreen, hasCodeView, obtainCode]);

  const requestNewCode = useCallback(() => {
    callbacks.current.clearReport();
    void obtainCode(true);
  }, [obtainCode]);

  const send = useCallback(
    (option: ChannelOption) => {
      if (typeof userId !== 'string' || locale === undefined) return;
      callbacks.current.clearReport();
      setSendResult(undefined);
      setSending(true);
      createAndSendCode(userId, option.sendType, option.recipient, locale)
        .then(
          (to) => setSendResult({ ok: true, to }),
          (error: unknown) => {
            if (error instanceof EnvelopeError) setSendResult({ ok: false, message: error.serverMessage });
            // Spec section 8: a send that fails over HTTP is only logged.
            else console.error('The emergency code could not be sent', error);
          },
        )
        .finally(() => setSending(false));
    },
    [userId, locale],
  );

  const dismissResult = useCallback(() => setSendResult(undefined), []);

  return { view, sending, sendResult, requestNewCode, send, dismissResult };
}
