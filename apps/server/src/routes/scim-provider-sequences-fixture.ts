import { scimClient } from '../testing/scim-client.js';
import type { TestApp } from '../testing/test-app.js';

/**
 * The requests Microsoft Entra ID's and Okta's provisioning services send, in the order they send
 * them, as their published documentation shows them (Entra: "Tutorial: Develop and plan
 * provisioning for a SCIM endpoint", its user and group operations, and "Known issues and
 * resolutions with SCIM 2.0 protocol compliance", the requests made without the aadOptscim062020
 * flag; Okta: "SCIM 2.0 protocol reference" and its Group Push), each answer checked. The ids in
 * their documents are replaced by the ones this server gave.
 */

export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** The provider's client: its requests over real HTTP as it sends them (Entra: application/scim+json; Okta: application/json). */
export async function providerOf(t: TestApp, name: string, contentType: string) {
  const { base, call } = await scimClient(t, { name, contentType, accept: 'application/scim+json' });
  return { base, send: call };
}
