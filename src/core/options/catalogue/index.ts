/**
 * The option catalogue: every server option (all server files concatenated), the general
 * client options, and the options of the `patch` operation.
 */
import type { OptionSpec } from '../types.js'
import { ADMISSION_OPTIONS } from './admission.js'
import { AUDIT_OPTIONS } from './audit.js'
import { AUTHENTICATION_OPTIONS } from './authentication.js'
import { AUTHORIZATION_OPTIONS } from './authorization.js'
import { CLIENT_OPTIONS } from './client.js'
import { CLUSTER_OPTIONS } from './cluster.js'
import { LIMITS_OPTIONS } from './limits.js'
import { OBSERVABILITY_OPTIONS } from './observability.js'
import { PATCH_OPTIONS } from './patch.js'
import { SERVING_OPTIONS } from './serving.js'
import { STORAGE_OPTIONS } from './storage.js'

export {
  ADMISSION_OPTIONS,
  AUDIT_OPTIONS,
  AUTHENTICATION_OPTIONS,
  AUTHORIZATION_OPTIONS,
  CLIENT_OPTIONS,
  CLUSTER_OPTIONS,
  LIMITS_OPTIONS,
  OBSERVABILITY_OPTIONS,
  PATCH_OPTIONS,
  SERVING_OPTIONS,
  STORAGE_OPTIONS,
}

export const SERVER_OPTIONS: readonly OptionSpec[] = [
  ...SERVING_OPTIONS,
  ...ADMISSION_OPTIONS,
  ...STORAGE_OPTIONS,
  ...AUDIT_OPTIONS,
  ...OBSERVABILITY_OPTIONS,
  ...AUTHENTICATION_OPTIONS,
  ...AUTHORIZATION_OPTIONS,
  ...LIMITS_OPTIONS,
]

/** `client cluster start`: every server option and the cluster's own. */
export const CLUSTER_START_OPTIONS: readonly OptionSpec[] = [...SERVER_OPTIONS, ...CLUSTER_OPTIONS]
