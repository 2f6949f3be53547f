/**
 * The structured authentication configuration (`--authentication-config`,
 * `apiserver.config.k8s.io` AuthenticationConfiguration v1alpha1, v1beta1 and v1): decoding with
 * unknown fields refused, validation with the reference's field errors (reference:
 * apiserver/pkg/apis/apiserver/validation, ValidateAuthenticationConfiguration), and the CEL
 * expressions compiled once. The `--oidc-*` options become the same JWTAuthenticator, as the
 * reference's ToAuthenticationConfig builds it, so both paths share one validator.
 */
import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'

import { type CelProgram, CelCompileError, celEnvironment, compileCel } from '../cel/index.js'
import { jsYaml } from '../util/yaml.js'

export const GROUP = 'apiserver.config.k8s.io'
const VERSIONS = ['v1alpha1', 'v1beta1', 'v1']
const KIND = 'AuthenticationConfiguration'

/** Bad configuration: the message is the reference's, ready for the start-up error. */
export class AuthenticationConfigError extends Error {
  override name = 'AuthenticationConfigError'
}

export interface PrefixedClaimOrExpression {
  claim?: string
  prefix?: string
  expression?: string
}

export interface JwtAuthenticatorSpec {
  issuer: {
    url: string
    discoveryURL?: string
    certificateAuthority?: string
    audiences: string[]
    audienceMatchPolicy?: string
    egressSelectorType?: string
  }
  claimValidationRules: Array<{ claim?: string; requiredValue?: string; expression?: string; message?: string }>
  claimMappings: {
    username: PrefixedClaimOrExpression
    groups: PrefixedClaimOrExpression
    uid: { claim?: string; expression?: string }
    extra: Array<{ key: string; valueExpression: string }>
  }
  userValidationRules: Array<{ expression: string; message?: string }>
}

export interface AnonymousSpec {
  enabled: boolean
  conditions: Array<{ path: string }>
}

export interface AuthenticationConfigSpec {
  jwt: JwtAuthenticatorSpec[]
  anonymous?: AnonymousSpec
}

/** A rule's compiled expression and the message shown when it fails. */
export interface CompiledRule {
  program: CelProgram
  message: string
}

/** The compiled CEL of one JWT authenticator (the reference's CELMapper). */
export interface CelMapper {
  username?: CelProgram
  groups?: CelProgram
  uid?: CelProgram
  extra: Array<{ key: string; program: CelProgram }>
  claimValidationRules: CompiledRule[]
  userValidationRules: CompiledRule[]
}

export interface CompiledJwtAuthenticator {
  spec: JwtAuthenticatorSpec
  mapper: CelMapper
}

export interface AuthenticationConfig {
  jwt: CompiledJwtAuthenticator[]
  anonymous?: AnonymousSpec
  /** The file's text, to tell a real change from a touch on reload. */
  data?: string
}

// ---------------------------------------------------------------------------------------------
// field.ErrorList, as the reference prints it

function goQuote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value) ?? 'null'
}

class FieldErrors {
  readonly list: string[] = []
  required(path: string, detail = ''): void {
    this.list.push(`${path}: Required value${detail ? `: ${detail}` : ''}`)
  }
  invalid(path: string, value: unknown, detail: string): void {
    this.list.push(`${path}: Invalid value: ${value === '<omitted>' ? '"<omitted>"' : goQuote(value)}: ${detail}`)
  }
  duplicate(path: string, value: unknown): void {
    this.list.push(`${path}: Duplicate value: ${goQuote(value)}`)
  }
  tooMany(path: string, actual: number, max: number): void {
    this.list.push(`${path}: Too many: ${actual}: must have at most ${max} items`)
  }
  forbidden(path: string, detail: string): void {
    this.list.push(`${path}: Forbidden: ${detail}`)
  }
  /** utilerrors.NewAggregate's message: one error as is, several in brackets. */
  message(): string | undefined {
    if (this.list.length === 0) return undefined
    return this.list.length === 1 ? this.list[0] : `[${this.list.join(', ')}]`
  }
}

// ---------------------------------------------------------------------------------------------
// decoding

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Reads the fields of one object, recording unknown ones as the strict decoder does. */
class StrictReader {
  readonly unknown: string[] = []
  readonly typeErrors: string[] = []

  object(value: unknown, path: string, allowed: readonly string[]): Obj {
    if (value === undefined || value === null) return {}
    if (!isObj(value)) {
      this.typeErrors.push(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${path} of type object`)
      return {}
    }
    for (const key of Object.keys(value)) if (!allowed.includes(key)) this.unknown.push(`unknown field "${path ? `${path}.` : ''}${key}"`)
    return value
  }

  string(obj: Obj, key: string, path: string): string | undefined {
    const value = obj[key]
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'string') {
      this.typeErrors.push(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${path}.${key} of type string`)
      return undefined
    }
    return value
  }

  boolean(obj: Obj, key: string, path: string): boolean {
    const value = obj[key]
    if (value === undefined || value === null) return false
    if (typeof value !== 'boolean') {
      this.typeErrors.push(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${path}.${key} of type bool`)
      return false
    }
    return value
  }

  array(obj: Obj, key: string, path: string): unknown[] {
    const value = obj[key]
    if (value === undefined || value === null) return []
    if (!Array.isArray(value)) {
      this.typeErrors.push(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${path}.${key} of type array`)
      return []
    }
    return value
  }

  strings(obj: Obj, key: string, path: string): string[] {
    return this.array(obj, key, path).map((item) => {
      if (typeof item !== 'string') {
        this.typeErrors.push(`json: cannot unmarshal ${jsonType(item)} into Go struct field ${path}.${key} of type string`)
        return ''
      }
      return item
    })
  }
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array'
  if (value === null) return 'null'
  return typeof value === 'object' ? 'object' : typeof value
}

function readPrefixed(reader: StrictReader, value: unknown, path: string): PrefixedClaimOrExpression {
  const obj = reader.object(value, path, ['claim', 'prefix', 'expression'])
  const out: PrefixedClaimOrExpression = {}
  const claim = reader.string(obj, 'claim', path)
  const expression = reader.string(obj, 'expression', path)
  const prefix = reader.string(obj, 'prefix', path)
  if (claim !== undefined) out.claim = claim
  if (expression !== undefined) out.expression = expression
  // A prefix given as "" is still given: it disables prefixing.
  if (prefix !== undefined) out.prefix = prefix
  return out
}

function readJwtAuthenticator(reader: StrictReader, value: unknown, path: string): JwtAuthenticatorSpec {
  const obj = reader.object(value, path, ['issuer', 'claimValidationRules', 'claimMappings', 'userValidationRules'])
  const issuerPath = `${path}.issuer`
  const issuer = reader.object(obj.issuer, issuerPath, ['url', 'discoveryURL', 'certificateAuthority', 'audiences', 'audienceMatchPolicy', 'egressSelectorType'])
  const mappingsPath = `${path}.claimMappings`
  const mappings = reader.object(obj.claimMappings, mappingsPath, ['username', 'groups', 'uid', 'extra'])
  const uid = reader.object(mappings.uid, `${mappingsPath}.uid`, ['claim', 'expression'])
  return {
    issuer: {
      url: reader.string(issuer, 'url', issuerPath) ?? '',
      discoveryURL: reader.string(issuer, 'discoveryURL', issuerPath),
      certificateAuthority: reader.string(issuer, 'certificateAuthority', issuerPath),
      audiences: reader.strings(issuer, 'audiences', issuerPath),
      audienceMatchPolicy: reader.string(issuer, 'audienceMatchPolicy', issuerPath),
      egressSelectorType: reader.string(issuer, 'egressSelectorType', issuerPath),
    },
    claimValidationRules: reader.array(obj, 'claimValidationRules', path).map((raw, i) => {
      const p = `${path}.claimValidationRules[${i}]`
      const rule = reader.object(raw, p, ['claim', 'requiredValue', 'expression', 'message'])
      return {
        claim: reader.string(rule, 'claim', p),
        requiredValue: reader.string(rule, 'requiredValue', p),
        expression: reader.string(rule, 'expression', p),
        message: reader.string(rule, 'message', p),
      }
    }),
    claimMappings: {
      username: readPrefixed(reader, mappings.username, `${mappingsPath}.username`),
      groups: readPrefixed(reader, mappings.groups, `${mappingsPath}.groups`),
      uid: { claim: reader.string(uid, 'claim', `${mappingsPath}.uid`), expression: reader.string(uid, 'expression', `${mappingsPath}.uid`) },
      extra: reader.array(mappings, 'extra', mappingsPath).map((raw, i) => {
        const p = `${mappingsPath}.extra[${i}]`
        const extra = reader.object(raw, p, ['key', 'valueExpression'])
        return { key: reader.string(extra, 'key', p) ?? '', valueExpression: reader.string(extra, 'valueExpression', p) ?? '' }
      }),
    },
    userValidationRules: reader.array(obj, 'userValidationRules', path).map((raw, i) => {
      const p = `${path}.userValidationRules[${i}]`
      const rule = reader.object(raw, p, ['expression', 'message'])
      return { expression: reader.string(rule, 'expression', p) ?? '', message: reader.string(rule, 'message', p) }
    }),
  }
}

/** The js-yaml error in go-yaml's words, which name the line. */
function yamlError(err: Error & { mark?: { line: number }; reason?: string }): string {
  if (err.mark) return `error converting YAML to JSON: yaml: line ${err.mark.line + 1}: ${err.reason ?? err.message.split('\n')[0]}`
  return `error converting YAML to JSON: ${err.message.split('\n')[0]}`
}

/** Decodes the file's content (runtime.Decode with the strict codec); throws AuthenticationConfigError. */
export function decodeAuthenticationConfig(text: string): AuthenticationConfigSpec {
  if (text.length === 0) throw new AuthenticationConfigError('empty config data')
  let doc: unknown
  try {
    doc = jsYaml().load(text)
  } catch (err) {
    throw new AuthenticationConfigError(yamlError(err as Error))
  }
  if (!isObj(doc)) throw new AuthenticationConfigError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(doc)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`)
  const kind = typeof doc.kind === 'string' ? doc.kind : ''
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : ''
  if (kind === '') throw new AuthenticationConfigError(`Object 'Kind' is missing in '${JSON.stringify(doc)}'`)
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion]
  if (group !== GROUP || !VERSIONS.includes(version!) || kind !== KIND) {
    throw new AuthenticationConfigError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:100"`)
  }
  const reader = new StrictReader()
  const root = reader.object(doc, '', ['apiVersion', 'kind', 'jwt', 'anonymous'])
  const jwt = reader.array(root, 'jwt', '').map((raw, i) => readJwtAuthenticator(reader, raw, `jwt[${i}]`))
  let anonymous: AnonymousSpec | undefined
  if (root.anonymous !== undefined && root.anonymous !== null) {
    const obj = reader.object(root.anonymous, 'anonymous', ['enabled', 'conditions'])
    anonymous = {
      enabled: reader.boolean(obj, 'enabled', 'anonymous'),
      conditions: reader.array(obj, 'conditions', 'anonymous').map((raw, i) => {
        const p = `anonymous.conditions[${i}]`
        const condition = reader.object(raw, p, ['path'])
        return { path: reader.string(condition, 'path', p) ?? '' }
      }),
    }
  }
  if (reader.typeErrors.length > 0) throw new AuthenticationConfigError(reader.typeErrors[0]!)
  if (reader.unknown.length > 0) throw new AuthenticationConfigError(`strict decoding error: ${reader.unknown.join(', ')}`)
  return { jwt, anonymous }
}

// ---------------------------------------------------------------------------------------------
// validation and compilation

const MAX_JWT_AUTHENTICATORS = 64
const MATCH_ANY = 'MatchAny'

/** Go's url.Parse is lax; what it refuses here is what WHATWG URL refuses too, give or take. */
function validateUrl(url: string, disallowed: ReadonlySet<string>, path: string, errs: FieldErrors): void {
  if (disallowed.has(url)) errs.invalid(path, url, `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]`)
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    // Go parses a scheme-less string as a path: only the scheme check fails.
    errs.invalid(path, url, 'URL scheme must be https')
    return
  }
  if (parsed.protocol !== 'https:') errs.invalid(path, url, 'URL scheme must be https')
  if (parsed.username || parsed.password || /^[^/]*\/\/[^/]*@/.test(url)) errs.invalid(path, url, 'URL must not contain a username or password')
  if (parsed.search.length > 1) errs.invalid(path, url, 'URL must not contain a query')
  if (parsed.hash.length > 1) errs.invalid(path, url, 'URL must not contain a fragment')
}

/** cert.NewPoolFromBytes: at least one PEM certificate that parses. */
export function certificatesFromPem(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []
  const certs: X509Certificate[] = []
  for (const block of blocks) {
    try {
      certs.push(new X509Certificate(block))
    } catch {
      throw new Error('data does not contain any valid RSA or ECDSA certificates')
    }
  }
  if (certs.length === 0) throw new Error('data does not contain any valid RSA or ECDSA certificates')
  return certs
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

/** utilvalidation.IsDomainPrefixedPath. */
function validateDomainPrefixedPath(path: string, key: string, errs: FieldErrors): void {
  if (key.length === 0) {
    errs.required(path)
    return
  }
  const slash = key.indexOf('/')
  if (slash < 0) {
    errs.invalid(path, key, 'must be a domain-prefixed path (such as "acme.io/foo")')
    return
  }
  const host = key.slice(0, slash)
  const rest = key.slice(slash + 1)
  if (host.length > 253) errs.invalid(path, host, 'must be no more than 253 characters')
  else if (!DNS1123_SUBDOMAIN.test(host)) {
    errs.invalid(
      path,
      host,
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    )
  }
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(rest)) errs.invalid(path, rest, "Invalid path: must consist of the characters [A-Za-z0-9/\\-._~%!$&'()*+,;=:]")
}

function isKubernetesDomainPrefix(key: string): boolean {
  const slash = key.indexOf('/')
  const domain = slash < 0 ? '' : key.slice(0, slash)
  return domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io') || domain === 'k8s.io' || domain.endsWith('.k8s.io')
}

/** Whether the expression selects `claims.<field>` (or `claims.?<field>`), as the reference's AST walk asks. */
function selectsClaim(expression: string, field: string): boolean {
  return new RegExp(`\\bclaims\\s*\\.\\s*\\??\\s*${field}(?![A-Za-z0-9_])`).test(expression)
}

let claimsEnv: ReturnType<typeof celEnvironment> | undefined
let userEnv: ReturnType<typeof celEnvironment> | undefined

/** The reference's two environments: `claims` (map(string, any)) and `user` (kubernetes.UserInfo). */
function compileFor(variable: 'claims' | 'user', expression: string, returnTypes: readonly string[]): CelProgram {
  if (variable === 'claims') {
    claimsEnv ??= celEnvironment({ claims: 'map<string, dyn>' })
    return compileCel(claimsEnv, expression, returnTypes)
  }
  userEnv ??= celEnvironment({
    user: { schema: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' } },
  })
  return compileCel(userEnv, expression, returnTypes)
}

function compileInto(
  variable: 'claims' | 'user',
  expression: string,
  returnTypes: readonly string[],
  path: string,
  errs: FieldErrors,
): CelProgram | undefined {
  try {
    return compileFor(variable, expression, returnTypes)
  } catch (err) {
    if (err instanceof CelCompileError) {
      errs.invalid(path, expression, err.message)
      return undefined
    }
    throw err
  }
}

// The return types the reference's expression accessors declare.
const STRING = ['string']
const STRING_OR_LIST = ['string', 'list(string)']
const BOOL = ['bool']

function validatePrefixed(mapping: PrefixedClaimOrExpression, path: string, required: boolean, returnTypes: readonly string[], errs: FieldErrors): CelProgram | undefined {
  const hasClaim = (mapping.claim ?? '') !== ''
  const hasExpression = (mapping.expression ?? '') !== ''
  if (hasClaim && hasExpression) {
    errs.invalid(path, '', "claim and expression can't both be set")
  } else if (!hasClaim && !hasExpression && required) {
    errs.required(path, 'claim or expression is required')
  } else if (hasExpression) {
    if (mapping.prefix !== undefined) errs.invalid(`${path}.prefix`, mapping.prefix, 'may not be specified when expression is set')
    return compileInto('claims', mapping.expression!, returnTypes, `${path}.expression`, errs)
  } else if (hasClaim && mapping.prefix === undefined) {
    errs.required(`${path}.prefix`, 'prefix is required when claim is set. It can be set to an empty string to disable prefixing')
  }
  return undefined
}

function validateJwtAuthenticator(spec: JwtAuthenticatorSpec, path: string, disallowed: ReadonlySet<string>, errs: FieldErrors): CelMapper {
  const mapper: CelMapper = { extra: [], claimValidationRules: [], userValidationRules: [] }
  const issuerPath = `${path}.issuer`
  const { issuer } = spec

  // issuer
  if (issuer.url === '') errs.required(`${issuerPath}.url`)
  else validateUrl(issuer.url, disallowed, `${issuerPath}.url`, errs)
  if (issuer.discoveryURL) {
    if (issuer.url !== '' && issuer.url.replace(/\/+$/, '') === issuer.discoveryURL.replace(/\/+$/, '')) {
      errs.invalid(`${issuerPath}.discoveryURL`, issuer.discoveryURL, 'discoveryURL must be different from URL')
    }
    validateUrl(issuer.discoveryURL, new Set(), `${issuerPath}.discoveryURL`, errs)
  }
  const audiencesPath = `${issuerPath}.audiences`
  if (issuer.audiences.length === 0) {
    errs.required(audiencesPath, `at least one ${audiencesPath} is required`)
  } else {
    const seen = new Set<string>()
    issuer.audiences.forEach((audience, i) => {
      if (audience === '') errs.required(`${audiencesPath}[${i}]`)
      if (seen.has(audience)) errs.duplicate(`${audiencesPath}[${i}]`, audience)
      seen.add(audience)
    })
    const policy = issuer.audienceMatchPolicy ?? ''
    if (issuer.audiences.length > 1 && policy !== MATCH_ANY) {
      errs.invalid(`${issuerPath}.audienceMatchPolicy`, policy, 'audienceMatchPolicy must be MatchAny for multiple audiences')
    }
    if (issuer.audiences.length === 1 && policy !== '' && policy !== MATCH_ANY) {
      errs.invalid(`${issuerPath}.audienceMatchPolicy`, policy, 'audienceMatchPolicy must be empty or MatchAny for single audience')
    }
  }
  if (issuer.certificateAuthority) {
    try {
      certificatesFromPem(issuer.certificateAuthority)
    } catch (err) {
      errs.invalid(`${issuerPath}.certificateAuthority`, '<omitted>', (err as Error).message)
    }
  }
  if (issuer.egressSelectorType) {
    errs.invalid(
      `${issuerPath}.egressSelectorType`,
      issuer.egressSelectorType,
      'egress selector is not supported when StructuredAuthenticationConfigurationEgressSelector feature gate is disabled',
    )
  }

  // claimValidationRules
  let usesEmailVerified = false
  const seenClaims = new Set<string>()
  const seenExpressions = new Set<string>()
  spec.claimValidationRules.forEach((rule, i) => {
    const p = `${path}.claimValidationRules[${i}]`
    const claim = rule.claim ?? ''
    const expression = rule.expression ?? ''
    if (claim !== '' && expression !== '') errs.invalid(p, claim, "claim and expression can't both be set")
    else if (claim === '' && expression === '') errs.required(p, 'claim or expression is required')
    else if (claim !== '') {
      if (rule.message) errs.invalid(`${p}.message`, rule.message, 'may not be specified when claim is set')
      if (seenClaims.has(claim)) errs.duplicate(`${p}.claim`, claim)
      seenClaims.add(claim)
    } else {
      if (rule.requiredValue) errs.invalid(`${p}.requiredValue`, rule.requiredValue, 'may not be specified when expression is set')
      if (seenExpressions.has(expression)) {
        errs.duplicate(`${p}.expression`, expression)
        return
      }
      seenExpressions.add(expression)
      const program = compileInto('claims', expression, BOOL, `${p}.expression`, errs)
      if (program) {
        mapper.claimValidationRules.push({ program, message: rule.message ?? '' })
        usesEmailVerified ||= selectsClaim(expression, 'email_verified')
      }
    }
  })

  // claimMappings
  const mappingsPath = `${path}.claimMappings`
  const { claimMappings } = spec
  mapper.username = validatePrefixed(claimMappings.username, `${mappingsPath}.username`, true, STRING, errs)
  const usesEmail = mapper.username !== undefined && selectsClaim(claimMappings.username.expression ?? '', 'email')
  if (mapper.username) usesEmailVerified ||= selectsClaim(claimMappings.username.expression ?? '', 'email_verified')
  mapper.groups = validatePrefixed(claimMappings.groups, `${mappingsPath}.groups`, false, STRING_OR_LIST, errs)
  const uid = claimMappings.uid
  if ((uid.claim ?? '') !== '' && (uid.expression ?? '') !== '') {
    errs.invalid(`${mappingsPath}.uid`, '', "claim and expression can't both be set")
  } else if ((uid.expression ?? '') !== '') {
    mapper.uid = compileInto('claims', uid.expression!, STRING, `${mappingsPath}.uid.expression`, errs)
  }
  const seenKeys = new Set<string>()
  claimMappings.extra.forEach((extra, i) => {
    const p = `${mappingsPath}.extra[${i}]`
    validateDomainPrefixedPath(`${p}.key`, extra.key, errs)
    if (extra.key !== extra.key.toLowerCase()) errs.invalid(`${p}.key`, extra.key, 'must be lowercase')
    if (isKubernetesDomainPrefix(extra.key)) errs.invalid(`${p}.key`, extra.key, 'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use')
    if (seenKeys.has(extra.key)) {
      errs.duplicate(`${p}.key`, extra.key)
      return
    }
    seenKeys.add(extra.key)
    if (extra.valueExpression === '') {
      errs.required(`${p}.valueExpression`)
      return
    }
    const program = compileInto('claims', extra.valueExpression, STRING_OR_LIST, `${p}.valueExpression`, errs)
    if (program) {
      mapper.extra.push({ key: extra.key, program })
      usesEmailVerified ||= selectsClaim(extra.valueExpression, 'email_verified')
    }
  })
  if (usesEmail && !usesEmailVerified) {
    errs.invalid(
      `${mappingsPath}.username.expression`,
      claimMappings.username.expression,
      'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
    )
  }

  // userValidationRules
  const seenUserExpressions = new Set<string>()
  spec.userValidationRules.forEach((rule, i) => {
    const p = `${path}.userValidationRules[${i}].expression`
    if (rule.expression === '') {
      errs.required(p)
      return
    }
    if (seenUserExpressions.has(rule.expression)) {
      errs.duplicate(p, rule.expression)
      return
    }
    seenUserExpressions.add(rule.expression)
    const program = compileInto('user', rule.expression, BOOL, p, errs)
    if (program) mapper.userValidationRules.push({ program, message: rule.message ?? '' })
  })

  return mapper
}

/**
 * ValidateAuthenticationConfiguration: every error at once, aggregated as the reference does;
 * `disallowedIssuers` are the service-account issuers. Throws AuthenticationConfigError.
 */
export function validateAuthenticationConfig(spec: AuthenticationConfigSpec, disallowedIssuers: readonly string[] = []): AuthenticationConfig {
  const errs = new FieldErrors()
  if (spec.jwt.length > MAX_JWT_AUTHENTICATORS) {
    errs.tooMany('jwt', spec.jwt.length, MAX_JWT_AUTHENTICATORS)
    throw new AuthenticationConfigError(errs.message())
  }
  const disallowed = new Set(disallowedIssuers)
  const seenIssuers = new Set<string>()
  const seenDiscoveryUrls = new Set<string>()
  const jwt = spec.jwt.map((authenticator, i) => {
    const path = `jwt[${i}]`
    const mapper = validateJwtAuthenticator(authenticator, path, disallowed, errs)
    if (seenIssuers.has(authenticator.issuer.url)) errs.duplicate(`${path}.issuer.url`, authenticator.issuer.url)
    seenIssuers.add(authenticator.issuer.url)
    const discovery = authenticator.issuer.discoveryURL ?? ''
    if (discovery !== '') {
      if (seenDiscoveryUrls.has(discovery)) errs.duplicate(`${path}.issuer.discoveryURL`, discovery)
      seenDiscoveryUrls.add(discovery)
    }
    return { spec: authenticator, mapper }
  })
  if (spec.anonymous && !spec.anonymous.enabled && spec.anonymous.conditions.length > 0) {
    errs.invalid('anonymous.conditions', spec.anonymous.conditions, 'enabled should be set to true when conditions are defined')
  }
  const message = errs.message()
  if (message) throw new AuthenticationConfigError(message)
  return { jwt, anonymous: spec.anonymous }
}

/** Reads, decodes and validates the file, with the reference's start-up wording. */
export function loadAuthenticationConfigFile(file: string, disallowedIssuers: readonly string[] = []): AuthenticationConfig {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    const reason = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'is a directory' : e.message
    throw new AuthenticationConfigError(`failed to load authentication configuration from file "${file}": open ${file}: ${reason}`)
  }
  let spec: AuthenticationConfigSpec
  try {
    spec = decodeAuthenticationConfig(text)
  } catch (err) {
    if (err instanceof AuthenticationConfigError) {
      throw new AuthenticationConfigError(`failed to load authentication configuration from file "${file}": ${err.message}`)
    }
    throw err
  }
  try {
    return { ...validateAuthenticationConfig(spec, disallowedIssuers), data: text }
  } catch (err) {
    if (err instanceof AuthenticationConfigError) throw new AuthenticationConfigError(`invalid authentication configuration: ${err.message}`)
    throw err
  }
}

/** The `--oidc-*` options. */
export interface OidcOptions {
  issuerUrl: string
  clientId: string
  caFile?: string
  usernameClaim: string
  usernamePrefix?: string
  groupsClaim?: string
  groupsPrefix?: string
  requiredClaims: Record<string, string>
  signingAlgs: string[]
}

/** The JWTAuthenticator the reference builds from the `--oidc-*` options (ToAuthenticationConfig). */
export function oidcOptionsConfig(options: OidcOptions, disallowedIssuers: readonly string[] = []): AuthenticationConfig {
  let usernamePrefix = options.usernamePrefix ?? ''
  // Legacy behaviour: without a prefix, every claim but email is prefixed with the issuer URL.
  if (usernamePrefix === '' && options.usernameClaim !== 'email') usernamePrefix = `${options.issuerUrl}#`
  if (options.usernamePrefix === '-') usernamePrefix = ''
  const spec: JwtAuthenticatorSpec = {
    issuer: { url: options.issuerUrl, audiences: [options.clientId] },
    claimValidationRules: Object.entries(options.requiredClaims).map(([claim, requiredValue]) => ({ claim, requiredValue })),
    claimMappings: {
      username: { claim: options.usernameClaim, prefix: usernamePrefix },
      groups: options.groupsClaim ? { claim: options.groupsClaim, prefix: options.groupsPrefix ?? '' } : {},
      uid: {},
      extra: [],
    },
    userValidationRules: [],
  }
  if (options.caFile) {
    try {
      spec.issuer.certificateAuthority = readFileSync(options.caFile, 'utf8')
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      const reason = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : e.message
      throw new AuthenticationConfigError(`open ${options.caFile}: ${reason}`)
    }
  }
  try {
    return validateAuthenticationConfig({ jwt: [spec] }, disallowedIssuers)
  } catch (err) {
    if (err instanceof AuthenticationConfigError) throw new AuthenticationConfigError(`invalid authentication configuration: ${err.message}`)
    throw err
  }
}
