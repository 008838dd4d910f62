import { describe, expect, it } from 'vitest';
import Value from 'typebox/value';
import { NewPassword } from './console-people-api.js';
import { newPasswordProblem } from './passwords.js';

describe('the rule of a new password', () => {
  it.each([
    ['seven77', false],
    ['eight888', true],
    ['x'.repeat(1024), true],
    ['x'.repeat(1025), false],
    // Characters are code points: 1,024 of them outside the BMP are 2,048 UTF-16 units.
    ['😀'.repeat(1024), true],
    ['😀'.repeat(7), false],
  ])('%#: a password of %s characters is one: %s', (password, valid) => {
    expect(newPasswordProblem(password) === undefined).toBe(valid);
    // The body schema of the doors says the same as the function.
    expect(Value.Check(NewPassword, password)).toBe(valid);
  });

  it('says what is wrong in the words every door answers with', () => {
    expect(newPasswordProblem('short')).toBe('the password must have 8 to 1024 characters');
  });
});
