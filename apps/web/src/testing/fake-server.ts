import type {
  BrandingEntry,
  ChannelMap,
  CreatedCode,
  Language,
  PolicyOptions,
  UserInfo,
} from '@dea/contract';
import { vi } from 'vitest';
import { testMessages, text } from './test-messages';
import { forgetStartupAnswers } from '../api/startup-answers';
import { contractDrift, contractProblems, PAGE_ANSWERS } from './contract-answers';

/**
 * A fake of /dea/api/ at the network boundary (global fetch), for component tests. It answers
 * like the real server by default and records every call, so tests can change one answer and
 * check exactly what the page sent.
 */
export interface RecordedCall {
  method: string;
  route: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

/**
 * `raw`: a body sent as it is, not as JSON (an answer that cannot be read). Every other answer is
 * checked against the contract's schema of its route (testing/contract-answers.ts) unless
 * `offContract` says why this one departs from it on purpose.
 */
export type FakeAnswer =
  | { status?: number; body?: unknown; raw?: string; offContract?: string }
  | 'network-error';
export type Handler = (call: RecordedCall) => FakeAnswer | Promise<FakeAnswer>;

export const TEST_USER: UserInfo = {
  fullName: 'Dana Demo',
  lastLogin: '2026-11-20T14:05:00.000Z',
  userId: 'user-1',
  userLocale: 'en',
};

export const TEST_LANGUAGES: Language[] = [
  { languageCode: 'en', languageName: 'English' },
  { languageCode: 'de', languageName: 'Deutsch' },
  { languageCode: 'fr', languageName: 'Français' },
  { languageCode: 'ar', languageName: 'العربية' },
  { languageCode: 'pt_BR', languageName: 'Português (Brasil)' },
];

/** The password the fake sign-in accepts, for any user name. */
export const TEST_PASSWORD = 'correct horse';

/** The language an Accept-Language header names, as the catalogs name it ('pt-BR' -> 'pt_BR'). */
const languageOf = (call: RecordedCall): string =>
  (call.headers.get('Accept-Language') ?? 'en').split(',')[0]?.trim().replace('-', '_') || 'en';

export const DISPLAY_POLICY: PolicyOptions = {
  enableECode: true,
  emergencyCodeDelivery: 'Display',
  codeLength: 10,
  codeAlphabet: '23456789ABCDEFGHJKLMNPQRSTUVWXYZ',
  codeValidityMinutes: 15,
  codeUses: 1,
  maxUnusedCodes: 5,
};

/** An answer no server gives, on purpose: `why` says what the test shows with it. */
export const offContract = (answer: FakeAnswer, why: string): FakeAnswer =>
  answer === 'network-error' ? answer : { ...answer, offContract: why };

export const ok = (result: unknown): FakeAnswer => ({ body: { error: 0, message: '', result } });
export const envelopeError = (error: number, message: string): FakeAnswer => ({
  body: { error, message, result: null },
});
export const httpStatus = (status: number): FakeAnswer => ({
  status,
  body: { error: status === 401 || status === 403 ? 3 : 1, message: `HTTP ${status}`, result: null },
});

export interface Deferred {
  /** Lets the held call answer. */
  release: (answer?: FakeAnswer) => void;
}

export class FakeServer {
  readonly calls: RecordedCall[] = [];
  /** The calls made while another was still waiting for its answer ('POST user/getPolicy'). */
  readonly overlapping: string[] = [];
  private inFlight = 0;
  private readonly handlers = new Map<string, Handler>();
  private codeNumber = 0;

  constructor() {
    this.on('POST userinfo', () => ({ body: TEST_USER }));
    this.on('GET resourceFile/getLanguageList', () => ok(TEST_LANGUAGES));
    this.on('POST user/get', () => ok({ id: TEST_USER.userId, userLocale: TEST_USER.userLocale }));
    this.on('GET message', (call) => ({ body: testMessages(call.query.get('lang') ?? 'en') }));
    this.on('POST customizationConfig/getCurrentConfig', () => ok([]));
    this.on('POST user/getPolicy', () => ok({ options: DISPLAY_POLICY }));
    this.on('POST user/queryAvailableChannels', () => ok({}));
    this.on('POST tempPass/create', () => {
      this.codeNumber += 1;
      const code: CreatedCode = { id: `code-${this.codeNumber}`, password: `CODE${this.codeNumber}ABCDE` };
      return ok({ rows: [code] });
    });
    this.on('POST tempPass/createAndSend', () => ok({ to: '+49 *** ***12' }));
    this.on('POST tempPass/revoke', () => ok({ revoked: true }));
    // The login application's sign-in (an absolute path, outside /dea/api/). Like the real
    // server, one answer for a wrong password and an unknown user, in the request's language.
    this.on('POST /login/api/session', (call) => {
      const { username, password } = call.body as { username: string; password: string };
      return password === TEST_PASSWORD
        ? ok({ username })
        : envelopeError(3, text(languageOf(call), 'login.failed'));
    });
  }

  /**
   * The login application's password link: the token `good-token` sets a password once, as the
   * real server does; any other, or a second use, is refused in the request's language.
   */
  passwordLink(): this {
    let used = false;
    return this.on('POST /login/api/password-link', (call) => {
      const { token } = call.body as { token: string };
      if (token !== 'good-token' || used)
        return envelopeError(3, text(languageOf(call), 'error.passwordLinkInvalid'));
      used = true;
      return ok({});
    });
  }

  /** The sign-in answers as for a locked user name or address (error 140). */
  lockSignIn(minutes: number): this {
    return this.on('POST /login/api/session', (call) => ({
      body: {
        error: 140,
        message: text(languageOf(call), 'login.locked', { minutes }),
        result: { retryAfterSeconds: minutes * 60 },
      },
    }));
  }

  on(route: string, handler: Handler): this {
    this.handlers.set(route, handler);
    return this;
  }

  answer(route: string, answer: FakeAnswer): this {
    return this.on(route, () => answer);
  }

  policy(options: Partial<PolicyOptions>): this {
    return this.answer('POST user/getPolicy', ok({ options: { ...DISPLAY_POLICY, ...options } }));
  }

  channels(map: ChannelMap): this {
    this.policy({ emergencyCodeDelivery: 'Channel' });
    return this.answer('POST user/queryAvailableChannels', ok(map));
  }

  branding(entries: BrandingEntry[]): this {
    return this.answer('POST customizationConfig/getCurrentConfig', ok(entries));
  }

  /** Holds the calls to a route until released, to see what the page shows meanwhile. */
  hold(route: string): Deferred {
    const previous = this.handlers.get(route);
    let release: (answer?: FakeAnswer) => void = () => undefined;
    const gate = new Promise<FakeAnswer | undefined>((resolve) => {
      release = resolve;
    });
    this.on(route, async (call) => (await gate) ?? (previous ? previous(call) : { status: 404 }));
    return { release: (answer) => release(answer) };
  }

  callsTo(route: string): RecordedCall[] {
    return this.calls.filter((call) => `${call.method} ${call.route}` === route);
  }

  routesCalled(): string[] {
    return this.calls.map((call) => `${call.method} ${call.route}`);
  }

  readonly fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input), window.location.href);
    const method = (init.method ?? 'GET').toUpperCase();
    const route = url.pathname.replace(/^\/dea\/api\//, '');
    const call: RecordedCall = {
      method,
      route,
      query: url.searchParams,
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    this.calls.push(call);
    if (this.inFlight > 0) this.overlapping.push(`${method} ${route}`);
    const handler = this.handlers.get(`${method} ${route}`);
    let answer: FakeAnswer;
    this.inFlight += 1;
    try {
      answer = handler
        ? await handler(call)
        : { status: 404, body: { error: 2, message: 'not found', result: null } };
    } finally {
      this.inFlight -= 1;
    }
    if (answer === 'network-error') throw new TypeError('Failed to fetch');
    if (handler !== undefined && answer.raw === undefined && answer.offContract === undefined)
      contractDrift.push(
        ...contractProblems(PAGE_ANSWERS, method, route, answer.status ?? 200, answer.body ?? null),
      );
    return new Response(answer.raw ?? JSON.stringify(answer.body ?? null), {
      status: answer.status ?? 200,
      headers: { 'Content-Type': 'application/json' },
    });
  };
}

export function installFakeServer(): FakeServer {
  const server = new FakeServer();
  // Each test starts without answers delivered with the page unless it puts some there.
  forgetStartupAnswers();
  vi.stubGlobal('fetch', vi.fn(server.fetch));
  return server;
}
