import { describe, expect, it } from 'vitest';
import { CONSOLE_ANSWERS, contractProblems, PAGE_ANSWERS } from './contract-answers';
import { DISPLAY_POLICY } from './fake-server';

describe("the fakes' answers against the contract", () => {
  it('finds nothing to say of an answer its route gives, a success or a business error', () => {
    const success = { error: 0, message: '', result: { options: DISPLAY_POLICY } };
    expect(contractProblems(PAGE_ANSWERS, 'POST', 'user/getPolicy', 200, success)).toEqual([]);
    const refused = { error: 140, message: 'Try again later.', result: { retryAfterSeconds: 60 } };
    expect(contractProblems(PAGE_ANSWERS, 'POST', 'tempPass/create', 429, refused)).toEqual([]);
    expect(
      contractProblems(CONSOLE_ANSWERS, 'POST', 'helpdesk/users/u1/unlock', 200, {
        error: 0,
        message: '',
        result: { count: 1 },
      }),
    ).toEqual([]);
  });

  it('names a field the schema lacks or refuses, and a route no server has', () => {
    const { codeLength: _dropped, ...fewer } = DISPLAY_POLICY;
    expect(
      contractProblems(PAGE_ANSWERS, 'POST', 'user/getPolicy', 200, {
        error: 0,
        message: '',
        result: { options: fewer },
      }),
    ).toEqual([expect.stringMatching(/^POST user\/getPolicy \(HTTP 200\): \/result\/options .*codeLength/)]);
    expect(contractProblems(CONSOLE_ANSWERS, 'GET', 'helpdesk/users/u1/nothing', 200, {})).toEqual([
      'GET helpdesk/users/u1/nothing: no route of the contract answers this call',
    ]);
    expect(
      contractProblems(PAGE_ANSWERS, 'POST', 'userinfo', 403, {
        error: 3,
        message: 'x',
        result: { loginPath: 42 },
      }),
    ).not.toEqual([]);
  });
});
