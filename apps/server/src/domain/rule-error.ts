/**
 * A change the product's rules refuse (a group, a policy option, a service key, a branding value,
 * a text): the message says why, for an operator; `kind` tells each entry point how to answer
 * (the console's API with 400, 404 or 409 for 'owned', the CLI with exit code 2 or 1). 'owned':
 * the thing belongs to another source (identity/group-ownership.ts), which the message names.
 */
export class RuleError extends Error {
  constructor(
    message: string,
    readonly kind: 'invalid' | 'conflict' | 'missing' | 'owned' = 'invalid',
  ) {
    super(message);
    this.name = 'RuleError';
  }
}
