// The types of docs-reference.mjs's page renderers, for reference-pages.test.ts.
export function cell(text: string): string;
export function settingsPage(settings: Readonly<Record<string, { schema: unknown; doc: string }>>): string;
export function cliPage(groups: readonly unknown[]): string;
export function auditEventsPage(events: Readonly<Record<string, string>>): string;
export function metricsPage(metrics: new () => unknown): Promise<string>;
export function apiPage(document: unknown): string;
export function servedApiDocument(): Promise<unknown>;
export function writeReference(): Promise<void>;
export function writeOpenApiJson(document: unknown): void;
