/**
 * The check names of spec section 2.1 in their order, as an independent transcription of the
 * spec for tests (the server's own list lives in src/server/health/index.ts).
 */
export const SPEC_CHECKS: readonly string[] = [
  'ping',
  'log',
  'store',
  'poststarthook/start-apiserver-admission-initializer',
  'poststarthook/generic-apiserver-start-informers',
  'poststarthook/start-apiextensions-informers',
  'poststarthook/start-apiextensions-controllers',
  'poststarthook/crd-informer-synced',
  'poststarthook/bootstrap-controller',
  'poststarthook/rbac/bootstrap-roles',
  'poststarthook/scheduling/bootstrap-system-priority-classes',
  'poststarthook/start-cluster-authentication-info-controller',
  'poststarthook/start-aggregator-informers',
  'poststarthook/apiservice-registration-controller',
  'poststarthook/apiservice-status-available-controller',
  'poststarthook/apiserver-autoregistration',
  'autoregister-completion',
  'poststarthook/apiservice-openapi-controller',
]

/** /readyz has `shutdown` last. */
export const SPEC_READYZ_CHECKS: readonly string[] = [...SPEC_CHECKS, 'shutdown']
