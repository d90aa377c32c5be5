export type { LicenseLogger } from "./license-check.js";
export { createLicenseClient, type LicenseClient, type LicenseClientOptions } from "./license-client.js";
export { requireEdition } from "./license-policy.js";
export { licenseReadinessCheck } from "./license-readiness.js";
export type { LicenseState, LicenseStatus } from "./license-state.js";
