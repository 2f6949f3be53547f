/**
 * Service-account tokens (reference: pkg/serviceaccount, jwt.go, claims.go and legacy.go).
 *
 * Bound tokens (TokenRequest, `kubectl create token`): JWTs signed by the issuer's key with
 * `iss` one of --service-account-issuer, `aud` meeting the server's audiences, and the
 * `kubernetes.io` claim naming the namespace, the service account and what the token is
 * bound to (a pod, a secret or a node). They stop working when that service account, pod or
 * secret is deleted or replaced (another uid). The user is
 * `system:serviceaccount:<namespace>:<name>` in `system:serviceaccounts` and
 * `system:serviceaccounts:<namespace>`, with the pod and node names and uids and the token's
 * id (`JTI=...`) in extra.
 *
 * Legacy tokens (issuer `kubernetes/serviceaccount`, kept in `kubernetes.io/service-account-token`
 * secrets): valid while, with --service-account-lookup, their secret still holds them and
 * their service account exists.
 *
 * A token of another issuer is not this method's; one of ours that fails a check is refused.
 */
import { randomUUID } from 'node:crypto'
import { type JWTPayload, SignJWT, compactVerify, decodeJwt, decodeProtectedHeader, errors as joseErrors } from 'jose'
import type { UserInfo } from '../http/types.js'
import { type AuthenticationContext, AuthenticationError, CREDENTIAL_ID_KEY, type TokenAuthenticator } from './authenticator.js'
import type { SigningKey, VerificationKeys } from './service-account-keys.js'
import type { ServiceAccountTokenEvents } from './service-account-metrics.js'

export const LEGACY_ISSUER = 'kubernetes/serviceaccount'
export { DEFAULT_ISSUER } from '../../core/config-files/service-account-issuer.js'
/** TokenRequest's `expirationSeconds` that asks for an extended, warn-only token (1 hour and 7 seconds). */
export const WARN_ONLY_EXPIRATION_SECONDS = 3607
/** How long an extended token lasts (one year). */
export const EXTENDED_EXPIRATION_SECONDS = 365 * 24 * 3600
/** go-jose's default leeway on exp, nbf and iat. */
const LEEWAY_SECONDS = 60

export const SERVICE_ACCOUNT_GROUP = 'system:serviceaccounts'
export const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name'
export const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid'
export const NODE_NAME_KEY = 'authentication.kubernetes.io/node-name'
export const NODE_UID_KEY = 'authentication.kubernetes.io/node-uid'

type Obj = Record<string, unknown>

/** Reads one object through the API (undefined when it does not exist). */
export type ObjectReader = (resource: 'serviceaccounts' | 'secrets' | 'pods' | 'nodes', namespace: string | undefined, name: string) => Promise<Obj | undefined>

export interface Ref {
  name: string
  uid: string
}

/** The private `kubernetes.io` claim of a bound token. */
export interface KubernetesClaim {
  namespace: string
  serviceaccount: Ref
  pod?: Ref
  secret?: Ref
  node?: Ref
  warnafter?: number
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`
}

export function serviceAccountUser(namespace: string, name: string, uid: string, extra?: Record<string, string[]>): UserInfo {
  return {
    name: serviceAccountUsername(namespace, name),
    uid,
    groups: [SERVICE_ACCOUNT_GROUP, `${SERVICE_ACCOUNT_GROUP}:${namespace}`],
    ...(extra && Object.keys(extra).length > 0 ? { extra } : {}),
  }
}

export interface TokenClaims {
  serviceAccount: Obj
  pod?: Obj
  secret?: Obj
  node?: Obj
  audiences: string[]
  expirationSeconds: number
  warnAfterSeconds?: number
}

function meta(o: Obj): { name: string; namespace: string; uid: string } {
  const m = (o.metadata ?? {}) as Obj
  return { name: String(m.name ?? ''), namespace: String(m.namespace ?? ''), uid: String(m.uid ?? '') }
}

/** Signs bound tokens with the issuer's key (the first --service-account-issuer). */
/** Signs a payload elsewhere (the external signer of --service-account-signing-endpoint). */
export interface PayloadSigner {
  sign(payload: Record<string, unknown>): Promise<string>
}

export class TokenIssuer {
  constructor(
    readonly issuer: string,
    readonly key: SigningKey | PayloadSigner,
  ) {}

  async generate(claims: TokenClaims, now = new Date()): Promise<string> {
    const sa = meta(claims.serviceAccount)
    const iat = Math.floor(now.getTime() / 1000)
    const kubernetes: KubernetesClaim = { namespace: sa.namespace, serviceaccount: { name: sa.name, uid: sa.uid } }
    if (claims.node) kubernetes.node = { name: meta(claims.node).name, uid: meta(claims.node).uid }
    if (claims.pod) kubernetes.pod = { name: meta(claims.pod).name, uid: meta(claims.pod).uid }
    if (claims.secret) kubernetes.secret = { name: meta(claims.secret).name, uid: meta(claims.secret).uid }
    if (claims.warnAfterSeconds) kubernetes.warnafter = iat + claims.warnAfterSeconds
    if ('sign' in this.key) {
      // The claims in the order Go marshals the reference's merged claim map: by name.
      return this.key.sign({
        aud: claims.audiences,
        exp: iat + claims.expirationSeconds,
        iat,
        iss: this.issuer,
        jti: randomUUID(),
        'kubernetes.io': kubernetes,
        nbf: iat,
        sub: serviceAccountUsername(sa.namespace, sa.name),
      })
    }
    return new SignJWT({ aud: claims.audiences, 'kubernetes.io': kubernetes as unknown as Record<string, unknown> })
      .setProtectedHeader({ alg: this.key.alg, kid: this.key.kid })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(sa.namespace, sa.name))
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(iat + claims.expirationSeconds)
      .setJti(randomUUID())
      .sign(this.key.privateKey)
  }
}

export interface ServiceAccountOptions {
  /** --service-account-issuer (the default one when none is given). */
  issuers: string[]
  keys: VerificationKeys
  /** --service-account-lookup: legacy tokens are checked against their secret and service account. */
  lookup: boolean
  objects: ObjectReader
  now?: () => number
  /** Counted as the reference's serviceaccount_* metrics. */
  events?: ServiceAccountTokenEvents
}

/** Verifies the signature with the key of the token's `kid`, else with each key in turn. */
async function verifySignature(token: string, source: VerificationKeys): Promise<void> {
  let kid: string | undefined
  try {
    kid = decodeProtectedHeader(token).kid
  } catch {
    throw new AuthenticationError('invalid token: malformed header')
  }
  const keys = typeof source === 'function' ? await source(kid) : source
  const byKid = kid ? keys.filter((k) => k.kid === kid) : []
  for (const { key } of byKid.length > 0 ? byKid : keys) {
    try {
      await compactVerify(token, key)
      return
    } catch (err) {
      if (!(err instanceof joseErrors.JWSSignatureVerificationFailed) && !(err instanceof joseErrors.JOSEAlgNotAllowed) && !(err instanceof joseErrors.JOSENotSupported)) {
        if (!(err instanceof TypeError)) throw new AuthenticationError(`invalid token: ${(err as Error).message}`)
      }
    }
  }
  throw new AuthenticationError('square/go-jose: error in cryptographic primitive')
}

function checkTimes(claims: JWTPayload, now: number): void {
  if (typeof claims.nbf === 'number' && now + LEEWAY_SECONDS < claims.nbf) throw new AuthenticationError('service account token is not valid yet')
  if (typeof claims.iat === 'number' && now + LEEWAY_SECONDS < claims.iat) throw new AuthenticationError('service account token is issued in the future')
  if (typeof claims.exp === 'number' && now - LEEWAY_SECONDS > claims.exp) throw new AuthenticationError('service account token has expired')
}

function deleted(o: Obj): boolean {
  return Boolean((o.metadata as Obj | undefined)?.deletionTimestamp)
}

function audiencesOf(claims: JWTPayload): string[] {
  return typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === 'string') : []
}

export function serviceAccountAuthenticator(options: ServiceAccountOptions): TokenAuthenticator {
  const issuers = new Set(options.issuers)
  const clock = options.now ?? (() => Date.now())
  return {
    name: 'service account',
    async authenticateToken(token, ctx) {
      // Only JWTs of our issuers are ours; anything else is for the next method.
      let claims: JWTPayload
      try {
        claims = decodeJwt(token)
      } catch {
        return null
      }
      const legacy = claims.iss === LEGACY_ISSUER
      if (!legacy && (typeof claims.iss !== 'string' || !issuers.has(claims.iss))) return null
      await verifySignature(token, options.keys)
      const now = Math.floor(clock() / 1000)
      if (legacy) {
        const response = await authenticateLegacy(token, claims, options, ctx)
        options.events?.legacyToken()
        return response
      }

      checkTimes(claims, now)
      const tokenAudiences = audiencesOf(claims)
      const audiences = ctx.audiences.filter((a) => tokenAudiences.includes(a))
      if (ctx.audiences.length > 0 && audiences.length === 0) {
        throw new AuthenticationError(`token audiences ${goQuoted(tokenAudiences)} is invalid for the target audiences ${goQuoted([...ctx.audiences])}`)
      }
      const k = claims['kubernetes.io'] as Partial<KubernetesClaim> | undefined
      if (!k || typeof k.namespace !== 'string' || !k.serviceaccount?.name) throw new AuthenticationError('service account token claims could not be validated due to unexpected private claim')
      const namespace = k.namespace
      const sa = await options.objects('serviceaccounts', namespace, k.serviceaccount.name)
      if (!sa) throw new AuthenticationError(`serviceaccounts "${k.serviceaccount.name}" not found`)
      if (meta(sa).uid !== k.serviceaccount.uid) throw new AuthenticationError(`service account UID (${meta(sa).uid}) does not match claim (${k.serviceaccount.uid})`)
      if (deleted(sa)) throw new AuthenticationError(`service account ${namespace}/${k.serviceaccount.name} has been deleted`)
      if (k.secret) {
        const secret = await options.objects('secrets', namespace, k.secret.name)
        if (!secret) throw new AuthenticationError(`secrets "${k.secret.name}" not found`)
        if (meta(secret).uid !== k.secret.uid) throw new AuthenticationError(`secret UID (${meta(secret).uid}) does not match service account secret ref claim (${k.secret.uid})`)
        if (deleted(secret)) throw new AuthenticationError(`secret ${namespace}/${k.secret.name} has been deleted`)
      }
      const extra: Record<string, string[]> = {}
      if (k.pod) {
        const pod = await options.objects('pods', namespace, k.pod.name)
        if (!pod) throw new AuthenticationError(`pods "${k.pod.name}" not found`)
        if (meta(pod).uid !== k.pod.uid) throw new AuthenticationError(`pod UID (${meta(pod).uid}) does not match service account pod ref claim (${k.pod.uid})`)
        if (deleted(pod)) throw new AuthenticationError(`pod ${namespace}/${k.pod.name} has been deleted`)
        extra[POD_NAME_KEY] = [k.pod.name]
        extra[POD_UID_KEY] = [k.pod.uid]
      }
      if (k.node) {
        // A pod-bound token names its node for information; a node-bound one needs the node.
        if (!k.pod) {
          const node = await options.objects('nodes', undefined, k.node.name)
          if (!node) throw new AuthenticationError(`nodes "${k.node.name}" not found`)
          if (k.node.uid && meta(node).uid !== k.node.uid) throw new AuthenticationError(`node UID (${meta(node).uid}) does not match service account node ref claim (${k.node.uid})`)
          if (deleted(node)) throw new AuthenticationError(`node ${k.node.name} has been deleted`)
        }
        extra[NODE_NAME_KEY] = [k.node.name]
        if (k.node.uid) extra[NODE_UID_KEY] = [k.node.uid]
      }
      if (typeof claims.jti === 'string' && claims.jti !== '') extra[CREDENTIAL_ID_KEY] = [`JTI=${claims.jti}`]
      // An extended token past its warnafter still works; it is counted, as the reference does.
      if (typeof k.warnafter === 'number' && k.warnafter !== 0) {
        if (now > k.warnafter) options.events?.staleToken()
        else options.events?.validToken()
      }
      return { user: serviceAccountUser(namespace, k.serviceaccount.name, k.serviceaccount.uid, extra), audiences }
    },
  }
}

/** Go's %q of a string slice: ["a" "b"]. */
function goQuoted(values: string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`
}

/** The label that marks a legacy token's secret as no longer valid (the legacy token cleaner's), and the warning of an auto-generated one. */
export const LEGACY_TOKEN_INVALID_SINCE_LABEL = 'kubernetes.io/legacy-token-invalid-since'
export const AUTO_GENERATED_TOKEN_WARNING = 'Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens.'

async function authenticateLegacy(token: string, claims: JWTPayload, options: ServiceAccountOptions, ctx: AuthenticationContext): Promise<{ user: UserInfo }> {
  const claim = (name: string) => {
    const v = claims[`kubernetes.io/serviceaccount/${name}`]
    return typeof v === 'string' ? v : ''
  }
  const namespace = claim('namespace')
  const secretName = claim('secret.name')
  const saName = claim('service-account.name')
  const saUid = claim('service-account.uid')
  if (namespace === '') throw new AuthenticationError('namespace claim is missing')
  if (secretName === '') throw new AuthenticationError('secretName claim is missing')
  if (saName === '') throw new AuthenticationError('serviceAccountName claim is missing')
  if (saUid === '') throw new AuthenticationError('serviceAccountUID claim is missing')
  if (options.lookup) {
    const secret = await options.objects('secrets', namespace, secretName)
    if (!secret || deleted(secret)) throw new AuthenticationError('token has been invalidated')
    const data = (secret.data ?? {}) as Record<string, unknown>
    const stored = typeof data.token === 'string' ? Buffer.from(data.token, 'base64').toString('utf8') : ''
    const sa = await options.objects('serviceaccounts', namespace, saName)
    if (!sa || deleted(sa)) throw new AuthenticationError(`service account ${namespace}/${saName} has been deleted`)
    if (meta(sa).uid !== saUid) throw new AuthenticationError(`service account UID (${saUid}) does not match server's copy (${meta(sa).uid})`)
    if (stored !== token) throw new AuthenticationError("token does not match server's copy")
    const labels = ((secret.metadata as Obj | undefined)?.labels ?? {}) as Obj
    if (labels[LEGACY_TOKEN_INVALID_SINCE_LABEL]) {
      throw new AuthenticationError(
        `the token in secret ${namespace}/${secretName} for service account ${namespace}/${saName} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${LEGACY_TOKEN_INVALID_SINCE_LABEL}' label from the secret to temporarily allow use of this token`,
      )
    }
    // A secret the service account lists is one the token controller made: the client hears it should move on (legacy.go).
    const listed = Array.isArray(sa.secrets) ? (sa.secrets as unknown[]) : []
    if (listed.some((ref) => typeof ref === 'object' && ref !== null && (ref as Obj).name === secretName)) ctx.warn?.(AUTO_GENERATED_TOKEN_WARNING)
  }
  return { user: serviceAccountUser(namespace, saName, saUid) }
}
