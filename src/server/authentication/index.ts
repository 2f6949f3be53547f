/**
 * Builds the server's authenticator from its configuration, in the reference's order
 * (pkg/kubeapiserver/authenticator/config.go):
 *
 *   1. request header (front proxy)        request-header.ts
 *   2. client certificates (x509)          x509.ts
 *   3. bearer tokens, each token method in this order (bearer-token.ts):
 *      a. the static token file           token-file.ts
 *      b. legacy service-account tokens   service-account.ts
 *      c. service-account tokens          service-account.ts
 *      d. bootstrap tokens                bootstrap-token.ts
 *      e. JWT / OIDC issuers              `jwt` below (branch authn-jwt)
 *      f. the token webhook               `webhook` below (branch authn-jwt)
 *   4. the same token methods for a WebSocket's token subprotocol   websocket-protocol.ts
 *   then every recognised user gets system:authenticated (union.ts), and, only when nobody
 *   refused the credentials presented, the anonymous authenticator (anonymous.ts).
 *
 * Files that cannot be read or parsed throw AuthenticationConfigError naming the option,
 * the file and, where it applies, the line: the server does not start.
 */
import { type AnonymousCondition, anonymousAuthenticator } from './anonymous.js'
import type { AuthenticationContext, AuthenticationResponse, Authenticator, TokenAuthenticator } from './authenticator.js'
import { audienceAgnostic, authenticateToken, bearerTokenAuthenticator } from './bearer-token.js'
import { type RequestHeaderOptions, requestHeaderAuthenticator } from './request-header.js'
import { readTokenFile, tokenFileAuthenticator } from './token-file.js'
import { webSocketProtocolAuthenticator } from './websocket-protocol.js'
import { UnionAuthenticator, withAuthenticatedGroup } from './union.js'
import { type CaProvider, DynamicCaFile, mergedCa, staticCa } from './dynamic-ca.js'
import { type CaBundle, mergeBundles, x509Authenticator } from './x509.js'

export { AuthenticationConfigError } from './authenticator.js'
export type { Authenticator, TokenAuthenticator } from './authenticator.js'

export interface AuthenticationOptions {
  /** --anonymous-auth (default true). */
  anonymous: boolean
  /** The `anonymous.conditions` of --authentication-config: anonymous only on these paths. */
  anonymousConditions?: AnonymousCondition[]
  /** --client-ca-file. */
  clientCaFile?: string
  /**
   * Authorities trusted for client certificates besides --client-ca-file: the CA the server
   * generated in --cert-dir, which signs the --write-kubeconfig administrator certificate.
   */
  extraClientCas?: CaBundle[]
  /** --token-auth-file. */
  tokenAuthFile?: string
  /** --requestheader-*: the front proxy; needs its CA file. */
  requestHeader?: Omit<RequestHeaderOptions, 'authorities'> & { clientCaFile: string }
  /** --api-audiences (default: the first service-account issuer). */
  apiAudiences: string[]
  /** Token methods built elsewhere, in the reference's order after the file: b, c, d above. */
  serviceAccountTokens?: TokenAuthenticator[]
  bootstrapTokens?: TokenAuthenticator
  /**
   * Plug-in points for branch authn-jwt: the JWT/OIDC issuers of --oidc-* or
   * --authentication-config (e), then the --authentication-token-webhook-config-file
   * authenticator (f). Both are token methods; the webhook caches its own answers.
   */
  jwt?: TokenAuthenticator[]
  webhook?: TokenAuthenticator
  log?: (level: number, message: string) => void
  /** Where the CA files' reloads are reported. */
  caLog?: { info(message: string): void; error(message: string): void }
}

export interface Authentication {
  union: UnionAuthenticator
  audiences: string[]
  /** The authorities client certificates are verified against now (published in extension-apiserver-authentication). */
  readonly clientCa?: CaBundle
  /** The front proxy's authorities now. */
  readonly requestHeaderCa?: CaBundle
  /** The CA files, reloaded when they change once started (stopped at shutdown). */
  caFiles: DynamicCaFile[]
  /** The token methods in order, for TokenReview. */
  tokenMethods: TokenAuthenticator[]
  /** TokenReview: the token as a bearer token alone; throws when it is refused. */
  reviewToken(token: string, audiences: readonly string[]): Promise<AuthenticationResponse>
  /** Start-up warnings (empty or repeated tokens in the token file...). */
  warnings: string[]
}

/** A bearer-token method: its authenticators from the options (none when it is off); start-up warnings go to `warnings`. */
export interface TokenMethod {
  readonly name: string
  build(options: AuthenticationOptions, warnings: string[]): TokenAuthenticator[]
}

/**
 * The bearer-token methods, one line each, in the reference's order (a token is tried with each
 * in turn): a token authenticator is one file in this room and its line here, with the option
 * it is built from in AuthenticationOptions (filled from the server's configuration in
 * from-config.ts). Bearer tokens and WebSocket token subprotocols both use this list.
 */
export const TOKEN_METHODS: readonly TokenMethod[] = [
  {
    name: 'token-file',
    build: (options, warnings) => {
      if (!options.tokenAuthFile) return []
      const file = readTokenFile(options.tokenAuthFile)
      warnings.push(...file.warnings)
      return [audienceAgnostic(tokenFileAuthenticator(file))]
    },
  },
  { name: 'service-account', build: (options) => options.serviceAccountTokens ?? [] },
  { name: 'bootstrap-token', build: (options) => (options.bootstrapTokens ? [audienceAgnostic(options.bootstrapTokens)] : []) },
  { name: 'jwt', build: (options) => options.jwt ?? [] },
  { name: 'webhook', build: (options) => (options.webhook ? [options.webhook] : []) },
]

export async function buildAuthentication(options: AuthenticationOptions): Promise<Authentication> {
  const warnings: string[] = []
  const methods: Authenticator[] = []

  const caFiles: DynamicCaFile[] = []
  let requestHeaderCa: DynamicCaFile | undefined
  if (options.requestHeader) {
    const { clientCaFile, ...rest } = options.requestHeader
    requestHeaderCa = new DynamicCaFile(clientCaFile, '--requestheader-client-ca-file', 'request-header', options.caLog)
    caFiles.push(requestHeaderCa)
    methods.push(requestHeaderAuthenticator({ ...rest, authorities: requestHeaderCa }))
  }

  const clientCaSources: CaProvider[] = (options.extraClientCas ?? []).map(staticCa)
  if (options.clientCaFile) {
    const file = new DynamicCaFile(options.clientCaFile, '--client-ca-file', 'client-ca-bundle', options.caLog)
    caFiles.push(file)
    clientCaSources.unshift(file)
  }
  const clientCa = clientCaSources.length > 0 ? mergedCa(clientCaSources, (bundles) => mergeBundles(bundles)!) : undefined
  if (clientCa) methods.push(await x509Authenticator(clientCa))

  const tokenMethods = TOKEN_METHODS.flatMap((method) => method.build(options, warnings))
  if (tokenMethods.length > 0) methods.push(bearerTokenAuthenticator(tokenMethods), webSocketProtocolAuthenticator(tokenMethods))

  const union = new UnionAuthenticator(methods, options.anonymous ? anonymousAuthenticator(options.anonymousConditions) : undefined)
  return {
    union,
    audiences: options.apiAudiences,
    get clientCa() {
      return clientCa?.current()
    },
    get requestHeaderCa() {
      return requestHeaderCa?.current()
    },
    caFiles,
    tokenMethods,
    async reviewToken(token, audiences) {
      const ctx: AuthenticationContext = { audiences, path: '' }
      const response = await authenticateToken(tokenMethods, token, ctx)
      return { ...response, user: withAuthenticatedGroup(response.user) }
    },
    warnings,
  }
}
