/**
 * The reference's service-account token metrics (pkg/serviceaccount/metrics.go): how many
 * legacy (secret) tokens are used, and, of the projected tokens that carry a `warnafter`
 * (extended one-year tokens given to pods, see --service-account-extend-token-expiration),
 * how many are used before and after that time. A stale token still works; the counter is how
 * an operator finds the workloads that do not refresh their token.
 */
import { Counter, type Registry } from 'prom-client'

export interface ServiceAccountTokenEvents {
  legacyToken(): void
  /** A projected token used after its warnafter. */
  staleToken(): void
  /** A projected token with a warnafter used before it. */
  validToken(): void
}

export function serviceAccountMetrics(registry: Registry): ServiceAccountTokenEvents {
  const counter = (name: string, help: string) => new Counter({ name: `serviceaccount_${name}`, help, registers: [registry] })
  const legacy = counter('legacy_tokens_total', '[ALPHA] Cumulative legacy service account tokens used')
  const stale = counter('stale_tokens_total', '[ALPHA] Cumulative stale projected service account tokens used')
  const valid = counter('valid_tokens_total', '[ALPHA] Cumulative valid projected service account tokens used')
  return { legacyToken: () => legacy.inc(), staleToken: () => stale.inc(), validToken: () => valid.inc() }
}
