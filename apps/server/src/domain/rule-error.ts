/**
 * A change the product's rules refuse (a group, a policy option, a service key, a branding value,
 * a text): the message says why, for an operator; `kind` tells each entry point how to answer
 * (the console's API with 400 or 404, the CLI with exit code 2 or 1).
 */
export class RuleError extends Error {
  constructor(
    message: string,
    readonly kind: 'invalid' | 'conflict' | 'missing' = 'invalid',
  ) {
    super(message);
    this.name = 'RuleError';
  }
}
