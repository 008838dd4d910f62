import Type from 'typebox';
import type { SettingValues } from '../../setting-values.js';

/** How users from outside (the directory's sync, the import) are written. */
export const provisioningSettings = {
  DEA_PROVISION_BATCH_SIZE: {
    schema: Type.Integer({ minimum: 1, maximum: 5000, default: 200 }),
    doc: "Users the directory's sync and dea user import write per store transaction (one commit per batch, each user still audited on their own). A user the store refuses sends their batch back to one transaction per user, so that only they fail. Larger: fewer commits; smaller: shorter transactions beside sign-ins (the embedded store writes one transaction at a time).",
  },
} as const;

export interface ProvisioningConfig {
  batchSize: number;
}

export function provisioningConfigOf(values: SettingValues<typeof provisioningSettings>): ProvisioningConfig {
  return { batchSize: values.DEA_PROVISION_BATCH_SIZE };
}
