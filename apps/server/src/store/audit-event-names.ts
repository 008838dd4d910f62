/**
 * The names of audit events the store takes. The store owns this registry and the domain fills it
 * (domain/audit/audit-events.ts augments it with every event it lists), so that the store takes only
 * known events without importing the domain.
 */
// oxlint-disable-next-line typescript/no-empty-object-type -- filled by declaration merging
export interface AuditEventRegistry {}

export type AuditEventName = Extract<keyof AuditEventRegistry, string>;
