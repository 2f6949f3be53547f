/**
 * Bootstrap token Secrets as the reference reads them (k8s.io/cluster-bootstrap: token/api,
 * secret/util): type `bootstrap.kubernetes.io/token` in kube-system, named
 * `bootstrap-token-<token-id>`, with `token-id`, `token-secret`, an optional RFC 3339
 * `expiration` and `usage-bootstrap-*` flags, all base64 in `data`.
 */
import type { KubeObject } from '../../api/registry/object.js'

export const BOOTSTRAP_TOKEN_TYPE = 'bootstrap.kubernetes.io/token'
export const BOOTSTRAP_TOKEN_PREFIX = 'bootstrap-token-'
const TOKEN_ID = /^[a-z0-9]{6}$/

/** A data value of the Secret, decoded (GetData). */
export function secretData(secret: KubeObject, key: string): string | undefined {
  const value = (secret.data as Record<string, string> | undefined)?.[key]
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8')
}

export const isBootstrapTokenSecret = (secret: KubeObject): boolean => secret.metadata.namespace === 'kube-system' && secret.type === BOOTSTRAP_TOKEN_TYPE

/**
 * GetExpiration: the time left before the token expires (ms), and whether it already has. A
 * token without an expiration (or with one that does not parse) never expires.
 */
export function expiration(secret: KubeObject, now: number): { ttlMs: number; expired: boolean } {
  const text = secretData(secret, 'expiration')
  if (text === undefined) return { ttlMs: 0, expired: false }
  const at = Date.parse(text)
  if (Number.isNaN(at)) return { ttlMs: 0, expired: false }
  const ttlMs = at - now
  return ttlMs <= 0 ? { ttlMs: 0, expired: true } : { ttlMs, expired: false }
}

/** validateSecretForSigning: the token's id and secret when it may sign `cluster-info`. */
export function signingToken(secret: KubeObject, now: number): { id: string; secret: string } | undefined {
  const nameId = secret.metadata.name?.startsWith(BOOTSTRAP_TOKEN_PREFIX) ? secret.metadata.name.slice(BOOTSTRAP_TOKEN_PREFIX.length) : undefined
  const id = secretData(secret, 'token-id')
  const tokenSecret = secretData(secret, 'token-secret')
  if (!id || id !== nameId || !TOKEN_ID.test(id) || !tokenSecret) return undefined
  if (expiration(secret, now).expired) return undefined
  if (secretData(secret, 'usage-bootstrap-signing') !== 'true') return undefined
  return { id, secret: tokenSecret }
}
