/**
 * The JWT (OpenID Connect) token authenticator, one per configured issuer (reference:
 * apiserver/plugin/pkg/authenticator/token/oidc). A token whose unverified `iss` is not this
 * issuer is not ours (null, the next method is asked); one that is must verify (signature with
 * the issuer's published keys and an allowed algorithm, audience, expiry, not-before) and map
 * to a user (claims or CEL), and pass the claim and user validation rules; otherwise it is
 * refused with the reference's reason (logged, never sent) and the request gets 401.
 */
import { compactVerify, decodeProtectedHeader, errors as joseErrors, type JWTPayload } from 'jose'

import type { UserInfo } from '../http/types.js'
import type { CompiledJwtAuthenticator, CompiledRule } from '../../core/config-files/authentication-config.js'
import { AuthenticationError } from './authenticator.js'
import { OidcProvider } from './oidc-discovery.js'

/** The algorithms the reference allows (--oidc-signing-algs; all of them for --authentication-config). */
export const ALL_SIGNING_ALGS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512']

/** The reference polls an issuer it could not reach at start-up this often. */
const INIT_RETRY_MS = 10_000
/** go-oidc's allowance for clock skew on `nbf`. */
const NOT_BEFORE_LEEWAY_S = 5 * 60

/** A refused token: the message is the reference's, for the log. */
export class JwtAuthenticationError extends AuthenticationError {}

export interface JwtLog {
  error(message: string): void
  v(level: number, message: string): void
}

const fail = (message: string): never => {
  throw new JwtAuthenticationError(message)
}

/** The `iss` of a compact JWT, unverified; undefined when the token is not a JWT. */
export function untrustedIssuer(token: string): string | undefined {
  if (token.trimStart().startsWith('{')) return undefined
  const parts = token.split('.')
  if (parts.length !== 3) return undefined
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { iss?: unknown }
    if (typeof claims !== 'object' || claims === null) return undefined
    // The legacy Google issuer, coalesced as the reference does.
    if (claims.iss === 'accounts.google.com') return 'https://accounts.google.com'
    return typeof claims.iss === 'string' ? claims.iss : undefined
  } catch {
    return undefined
  }
}

/** Go's time.Time String() for a Unix time, as go-oidc's messages print it. */
function goTime(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} +0000 UTC`
}

/** The claims as the reference's CEL sees them: integral numbers are ints (JSON decoding into unstructured). */
function celClaims(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value
  if (Array.isArray(value)) return value.map(celClaims)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celClaims(v)]))
  return value
}

/** convertCELValueToStringList: a string or a list of strings; "" and [] and null are none. */
function stringList(value: unknown): string[] {
  if (value === null || value === undefined) return []
  if (typeof value === 'string') return value === '' ? [] : [value]
  if (Array.isArray(value)) {
    if (!value.every((item) => typeof item === 'string')) throw new Error('expression must return a string or a list of strings')
    return value.filter((item) => item !== '')
  }
  throw new Error('expression must return a string or a list of strings')
}

function claimString(claims: JWTPayload, name: string, what: string): string {
  if (!(name in claims)) fail(`oidc: parse ${what} ${JSON.stringify(name)}: claim not present`)
  const value = claims[name]
  if (typeof value !== 'string') fail(`oidc: parse ${what} ${JSON.stringify(name)}: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type string`)
  return value as string
}

function checkRules(rules: readonly CompiledRule[], activation: Record<string, unknown>, context: string): void {
  for (const rule of rules) {
    let result: unknown
    try {
      result = rule.program.evaluate(activation)
    } catch (err) {
      fail(`oidc: ${context}: ${(err as Error).message}`)
    }
    if (typeof result !== 'boolean') fail(`oidc: ${context}: validation expression must return a boolean`)
    if (!result) fail(`oidc: ${context}: validation expression '${rule.program.expression}' failed: ${rule.message}`)
  }
}

export class JwtAuthenticator {
  readonly name = 'jwt'
  private provider: OidcProvider | undefined
  private attempt: Promise<void> | undefined
  private retry: NodeJS.Timeout | undefined
  private closed = false
  private readonly audiences: Set<string>
  private readonly requiredClaims: Array<[string, string]>

  constructor(
    private readonly config: CompiledJwtAuthenticator,
    private readonly signingAlgs: readonly string[],
    private readonly log?: JwtLog,
  ) {
    this.audiences = new Set(config.spec.issuer.audiences)
    this.requiredClaims = config.spec.claimValidationRules.filter((rule) => rule.claim).map((rule) => [rule.claim!, rule.requiredValue ?? ''])
  }

  get issuer(): string {
    return this.config.spec.issuer.url
  }

  /** Starts discovery; until it succeeds, it is tried again every 10 s (issuers served by the cluster itself come up later). */
  start(): Promise<void> {
    this.attempt ??= this.initialize()
    return this.attempt
  }

  private async initialize(): Promise<void> {
    const { issuer } = this.config.spec
    try {
      this.provider = await OidcProvider.discover({ issuer: issuer.url, discoveryURL: issuer.discoveryURL, certificateAuthority: issuer.certificateAuthority })
      this.log?.v(2, `oidc authenticator: initialized issuer ${JSON.stringify(issuer.url)} (keys from ${this.provider.jwksUri})`)
    } catch (err) {
      this.log?.error(`oidc authenticator: initializing plugin: ${(err as Error).message}`)
      if (!this.closed) {
        this.retry = setTimeout(() => {
          this.attempt = undefined
          void this.start()
        }, INIT_RETRY_MS)
        this.retry.unref()
      }
    }
  }

  get initialized(): boolean {
    return this.provider !== undefined
  }

  close(): void {
    this.closed = true
    if (this.retry) clearTimeout(this.retry)
  }

  async authenticateToken(token: string): Promise<{ user: UserInfo } | null> {
    if (untrustedIssuer(token) !== this.issuer) return null
    // A token that arrives while discovery is under way waits for it rather than failing.
    if (!this.provider && this.attempt) await this.attempt
    const provider = this.provider
    if (!provider) return fail('oidc: authenticator not initialized')
    const claims = await this.verify(provider, token)
    return { user: this.user(claims) }
  }

  /** go-oidc's IDTokenVerifier.Verify plus the local audience check for several audiences. */
  private async verify(provider: OidcProvider, token: string): Promise<JWTPayload> {
    let header: ReturnType<typeof decodeProtectedHeader>
    let claims: JWTPayload
    try {
      header = decodeProtectedHeader(token)
      claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as JWTPayload
      if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw new Error('payload is not a JSON object')
    } catch (err) {
      return fail(`oidc: verify token: oidc: malformed jwt: ${(err as Error).message}`)
    }
    const issuer = claims.iss === 'accounts.google.com' ? 'https://accounts.google.com' : claims.iss
    if (issuer !== this.issuer) fail(`oidc: verify token: oidc: id token issued by a different provider, expected ${JSON.stringify(this.issuer)} got ${JSON.stringify(claims.iss)}`)
    const audience = claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud]
    if (!audience.some((aud) => this.audiences.has(aud))) {
      if (this.audiences.size === 1) fail(`oidc: verify token: oidc: expected audience ${JSON.stringify([...this.audiences][0])} got ${JSON.stringify(audience)}`)
      fail(`oidc: verify token: oidc: expected audience in ${JSON.stringify([...this.audiences].sort())} got ${JSON.stringify(audience)}`)
    }
    const now = Date.now() / 1000
    const exp = typeof claims.exp === 'number' ? claims.exp : 0
    if (exp < now) fail(`oidc: verify token: oidc: token is expired (Token Expiry: ${goTime(exp)})`)
    if (typeof claims.nbf === 'number' && now + NOT_BEFORE_LEEWAY_S < claims.nbf) {
      fail(`oidc: verify token: oidc: current time ${goTime(Math.floor(now))} before the nbf (not before) time: ${goTime(claims.nbf)}`)
    }
    if (!this.signingAlgs.includes(header.alg ?? '')) {
      fail(`oidc: verify token: oidc: id token signed with unsupported algorithm, expected ${JSON.stringify(this.signingAlgs)} got ${JSON.stringify(header.alg)}`)
    }
    try {
      const keys = await provider.keyLookup(header.kid)
      await compactVerify(token, keys, { algorithms: [...this.signingAlgs] })
    } catch (err) {
      const reason = err instanceof joseErrors.JWKSNoMatchingKey ? 'failed to verify id token signature' : (err as Error).message
      fail(`oidc: verify token: failed to verify signature: ${reason}`)
    }
    return claims
  }

  /** Claims to user: the claim mappings or their CEL, then required claims and the validation rules. */
  private user(claims: JWTPayload): UserInfo {
    const { spec, mapper } = this.config
    const mappings = spec.claimMappings
    const activation = { claims: celClaims(claims) as Record<string, unknown> }
    const evaluate = (program: NonNullable<typeof mapper.username>, what: string): unknown => {
      try {
        return program.evaluateJson(activation)
      } catch (err) {
        return fail(`oidc: error evaluating ${what} claim expression: ${(err as Error).message}`)
      }
    }

    let name: string
    if (mapper.username) {
      const value = evaluate(mapper.username, 'username')
      if (typeof value !== 'string') fail('oidc: error evaluating username claim expression: username claim expression must return a string')
      name = value as string
    } else {
      const claim = mappings.username.claim ?? 'sub'
      name = claimString(claims, claim, 'username claims')
      if (claim === 'email' && 'email_verified' in claims) {
        if (typeof claims.email_verified !== 'boolean') fail("oidc: parse 'email_verified' claim: json: cannot unmarshal into Go value of type bool")
        if (!claims.email_verified) fail('oidc: email not verified')
      }
      if (mappings.username.prefix) name = mappings.username.prefix + name
    }

    let groups: string[] = []
    const groupsClaim = mappings.groups.claim ?? ''
    if (groupsClaim !== '' && groupsClaim in claims) {
      const value = claims[groupsClaim]
      const list = typeof value === 'string' ? [value] : value
      if (!Array.isArray(list) || !list.every((g) => typeof g === 'string')) {
        fail(`oidc: parse groups claim ${JSON.stringify(groupsClaim)}: json: cannot unmarshal ${typeof value} into Go value of type string`)
      }
      groups = (list as string[]).map((g) => (mappings.groups.prefix ? mappings.groups.prefix + g : g))
    } else if (mapper.groups) {
      try {
        groups = stringList(evaluate(mapper.groups, 'group'))
      } catch (err) {
        if (err instanceof JwtAuthenticationError) throw err
        fail(`oidc: error evaluating group claim expression: ${(err as Error).message}`)
      }
    }

    let uid = ''
    if (mappings.uid.claim) uid = claimString(claims, mappings.uid.claim, 'uid claim')
    else if (mapper.uid) {
      const value = evaluate(mapper.uid, 'uid')
      if (typeof value !== 'string') fail('oidc: error evaluating uid claim expression: uid claim expression must return a string')
      uid = value as string
    }

    const extra: Record<string, string[]> = {}
    for (const { key, program } of mapper.extra) {
      let values: string[]
      try {
        values = stringList(program.evaluateJson(activation))
      } catch (err) {
        return fail(`oidc: error evaluating extra claim expression: ${program.expression}: ${(err as Error).message}`)
      }
      if (values.length > 0) extra[key] = values
    }

    for (const [claim, value] of this.requiredClaims) {
      if (!(claim in claims)) fail(`oidc: required claim ${claim} not present in ID token`)
      const actual = claims[claim]
      if (typeof actual !== 'string') fail(`oidc: parse claim ${claim}: json: cannot unmarshal ${typeof actual} into Go value of type string`)
      if (actual !== value) fail(`oidc: required claim ${claim} value does not match. Got = ${String(actual)}, want = ${value}`)
    }
    checkRules(mapper.claimValidationRules, activation, 'error evaluating claim validation expression')

    const user: UserInfo = { name, groups }
    if (uid !== '') user.uid = uid
    if (Object.keys(extra).length > 0) user.extra = extra
    if (mapper.userValidationRules.length > 0) {
      checkRules(
        mapper.userValidationRules,
        { user: { username: name, uid, groups: [...groups], extra: Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, [...v]])) } },
        'error evaluating user info validation rule',
      )
    }
    return user
  }
}
