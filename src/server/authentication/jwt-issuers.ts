/**
 * The server's JWT authenticators, one per issuer, from the `--oidc-*` options or from the
 * `--authentication-config` file. The file is watched: a change that decodes and validates
 * replaces the issuers once the new ones have been tried (reference: the authentication
 * config's WatchUntil in pkg/kubeapiserver/options/authentication.go); a change that does not
 * is logged and the running configuration stays. The anonymous section may not change.
 */
import { watch, type FSWatcher } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { isDeepStrictEqual } from 'node:util'

import type { UserInfo } from '../http/types.js'
import {
  type AnonymousSpec,
  type AuthenticationConfig,
  AuthenticationConfigError,
  decodeAuthenticationConfig,
  loadAuthenticationConfigFile,
  type OidcOptions,
  oidcOptionsConfig,
  validateAuthenticationConfig,
} from '../../core/config-files/authentication-config.js'
import { ALL_SIGNING_ALGS, JwtAuthenticator, JwtAuthenticationError, type JwtLog } from './jwt.js'

/** How often the file is read even without a change notification (the reference: every minute). */
const POLL_MS = 60_000

export interface JwtIssuersOptions {
  oidc?: OidcOptions
  authenticationConfigFile?: string
  /** --service-account-issuer values, which a JWT issuer may not reuse. */
  serviceAccountIssuers: readonly string[]
  log: JwtLog & { info(message: string): void }
}

export class JwtIssuers {
  readonly name = 'jwt'
  private authenticators: JwtAuthenticator[] = []
  private data: string | undefined
  private watcher: FSWatcher | undefined
  private poll: NodeJS.Timeout | undefined
  private reloading: Promise<void> | undefined
  private readonly signingAlgs: readonly string[]
  /** The file's anonymous section, fixed at start-up. */
  readonly anonymous: AnonymousSpec | undefined

  /** Loads and validates the configuration; throws AuthenticationConfigError with the reference's start-up message. */
  constructor(private readonly options: JwtIssuersOptions) {
    let config: AuthenticationConfig
    if (options.authenticationConfigFile) {
      config = loadAuthenticationConfigFile(options.authenticationConfigFile, options.serviceAccountIssuers)
      // Any known algorithm is fine with the file, as long as a published key matches.
      this.signingAlgs = ALL_SIGNING_ALGS
      this.data = config.data
    } else if (options.oidc) {
      config = oidcOptionsConfig(options.oidc, options.serviceAccountIssuers)
      this.signingAlgs = options.oidc.signingAlgs.length > 0 ? options.oidc.signingAlgs : ['RS256']
      const unsupported = this.signingAlgs.find((alg) => !ALL_SIGNING_ALGS.includes(alg))
      if (unsupported) throw new AuthenticationConfigError(`oidc: unsupported signing alg: ${JSON.stringify(unsupported)}`)
    } else {
      config = { jwt: [] }
      this.signingAlgs = ALL_SIGNING_ALGS
    }
    this.anonymous = config.anonymous
    this.authenticators = config.jwt.map((jwt) => new JwtAuthenticator(jwt, this.signingAlgs, options.log))
  }

  get size(): number {
    return this.authenticators.length
  }

  /** Starts discovery of every issuer and, for a file, watching it. Resolves after the first attempt of each. */
  async start(): Promise<void> {
    const file = this.options.authenticationConfigFile
    if (file) {
      // The directory is watched, so an editor's or a config map's atomic replace is seen too.
      try {
        this.watcher = watch(dirname(file), (_event, name) => {
          if (name === null || name === basename(file)) this.scheduleReload()
        })
        this.watcher.on('error', (err) => this.options.log.error(`watching authentication config file: ${err.message}`))
      } catch (err) {
        this.options.log.error(`watching authentication config file: ${(err as Error).message}`)
      }
      this.poll = setInterval(() => this.scheduleReload(), POLL_MS)
      this.poll.unref()
    }
    await Promise.all(this.authenticators.map((a) => a.start()))
  }

  stop(): void {
    this.watcher?.close()
    if (this.poll) clearInterval(this.poll)
    for (const authenticator of this.authenticators) authenticator.close()
  }

  private scheduleReload(): void {
    if (this.reloading) return
    // A short pause lets a writer finish before the file is read.
    this.reloading = new Promise<void>((resolve) => setTimeout(resolve, 100))
      .then(() => this.reload())
      .finally(() => {
        this.reloading = undefined
      })
  }

  /** One reload: the same checks as at start-up, and the anonymous section unchanged. */
  async reload(): Promise<void> {
    const file = this.options.authenticationConfigFile
    if (!file) return
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (err) {
      this.options.log.error(`failed to read authentication config file: ${(err as Error).message}`)
      return
    }
    if (text === this.data) return
    let config: AuthenticationConfig
    try {
      const spec = decodeAuthenticationConfig(text)
      config = validateAuthenticationConfig(spec, this.options.serviceAccountIssuers)
      if (!isDeepStrictEqual(config.anonymous, this.anonymous)) throw new AuthenticationConfigError('anonymous: Forbidden: changed from initial configuration file')
    } catch (err) {
      this.options.log.error(`failed to load authentication config: ${(err as Error).message}`)
      // Not valid now, never valid: stop retrying this content.
      this.data = text
      return
    }
    const next = config.jwt.map((jwt) => new JwtAuthenticator(jwt, this.signingAlgs, this.options.log))
    await Promise.all(next.map((a) => a.start()))
    const previous = this.authenticators
    this.authenticators = next
    this.data = text
    for (const authenticator of previous) authenticator.close()
    this.options.log.info('reloaded authentication config')
  }

  /** Each issuer in turn: the first whose issuer the token names decides. */
  async authenticateToken(token: string): Promise<{ user: UserInfo } | null> {
    const errors: Error[] = []
    for (const authenticator of this.authenticators) {
      try {
        const response = await authenticator.authenticateToken(token)
        if (response) return response
      } catch (err) {
        errors.push(err as Error)
      }
    }
    if (errors.length === 0) return null
    throw new JwtAuthenticationError(errors.length === 1 ? errors[0]!.message : `[${errors.map((e) => e.message).join(', ')}]`)
  }
}
