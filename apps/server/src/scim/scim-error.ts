import { SCIM } from './scim-schemas.js';

/** RFC 7644 section 3.12: the scimType of a 400 or 409, saying what kind of mistake it is. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

/** A failure answered in SCIM's own error format. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
  }

  body(): Record<string, unknown> {
    return {
      schemas: [SCIM.error],
      status: String(this.status),
      ...(this.scimType !== undefined && { scimType: this.scimType }),
      detail: this.message,
    };
  }
}

export const invalidValue = (detail: string): ScimError => new ScimError(400, detail, 'invalidValue');
export const notFound = (what: string): ScimError => new ScimError(404, `${what} not found`);
