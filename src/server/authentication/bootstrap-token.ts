/**
 * Bootstrap tokens (reference: plugin/pkg/auth/authenticator/token/bootstrap), with
 * --enable-bootstrap-token-auth: a token `<id>.<secret>` (6 and 16 characters of [a-z0-9])
 * is valid while the `bootstrap.kubernetes.io/token` secret `bootstrap-token-<id>` of
 * kube-system holds that secret, is not expired (`expiration`, RFC 3339), is marked
 * `usage-bootstrap-authentication: "true"` and names valid extra groups. The user is
 * `system:bootstrap:<id>` in `system:bootstrappers` and the secret's `auth-extra-groups`.
 * Every other outcome leaves the token to the next method (so, in the end, a 401).
 */
import { timingSafeEqual } from 'node:crypto'
import type { TokenAuthenticator } from './authenticator.js'
import type { ObjectReader } from './service-account.js'

const TOKEN_RE = /^([a-z0-9]{6})\.([a-z0-9]{16})$/
const SECRET_PREFIX = 'bootstrap-token-'
const SECRET_TYPE = 'bootstrap.kubernetes.io/token'
const DEFAULT_GROUP = 'system:bootstrappers'
const GROUP_RE = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:'

/** The secret's groups: the default one and `auth-extra-groups`, sorted and unique; throws on an invalid group. */
export function bootstrapGroups(extra: string | undefined): string[] {
  const groups = new Set([DEFAULT_GROUP])
  for (const raw of (extra ?? '').split(',')) {
    const group = raw.trim()
    if (group === '') continue
    if (!GROUP_RE.test(group)) throw new Error(`bootstrap group "${group}" is invalid (must match ${GROUP_RE.source})`)
    groups.add(group)
  }
  return [...groups].sort()
}

export interface BootstrapTokenOptions {
  objects: ObjectReader
  now?: () => number
  /** Why a token was not accepted, for the log (-v=3, as the reference). */
  log?: (message: string) => void
}

export function bootstrapTokenAuthenticator(options: BootstrapTokenOptions): TokenAuthenticator {
  const clock = options.now ?? (() => Date.now())
  return {
    name: 'bootstrap token',
    async authenticateToken(token) {
      const m = TOKEN_RE.exec(token)
      if (!m) return null
      const [, id, secretPart] = m as unknown as [string, string, string]
      const name = SECRET_PREFIX + id
      const refuse = (why: string) => {
        options.log?.(`Bootstrap secret kube-system/${name} ${why}`)
        return null
      }
      const secret = await options.objects('secrets', 'kube-system', name)
      if (!secret) return refuse('not found')
      if ((secret.metadata as Record<string, unknown> | undefined)?.deletionTimestamp) return refuse('is deleted and awaiting removal')
      const rawData = secret.data as Record<string, unknown> | undefined
      if (secret.type !== SECRET_TYPE || !rawData) return refuse(`has invalid type, expected ${SECRET_TYPE}.`)
      const data = (key: string) => (typeof rawData[key] === 'string' ? Buffer.from(rawData[key] as string, 'base64').toString('utf8') : '')
      const stored = Buffer.from(data('token-secret'))
      const given = Buffer.from(secretPart)
      if (stored.length !== given.length || !timingSafeEqual(stored, given)) return refuse('has invalid value for key token-secret.')
      if (data('token-id') !== id) return refuse(`has invalid value for key token-id.`)
      const expiration = data('expiration')
      if (expiration !== '') {
        const at = Date.parse(expiration)
        if (Number.isNaN(at) || at <= clock()) return refuse(`has expired (expiration ${expiration}).`)
      }
      if (data('usage-bootstrap-authentication') !== 'true') return refuse('not marked usage-bootstrap-authentication=true.')
      let groups: string[]
      try {
        groups = bootstrapGroups(data('auth-extra-groups'))
      } catch (err) {
        return refuse(`has invalid value for key auth-extra-groups: ${(err as Error).message}.`)
      }
      return { user: { name: BOOTSTRAP_USER_PREFIX + id, groups } }
    },
  }
}
