/**
 * The two ways a client operation fails before the server has answered: the configuration
 * cannot be used (ClientConfigError), or the server cannot be reached (UnreachableError).
 * Messages are kubectl's, because users compare ours with what kubectl prints.
 */

/**
 * The client configuration (kubeconfig files and flags) cannot be used. `message` is the
 * error text; `display` is the whole line kubectl prints for it on stderr.
 */
export class ClientConfigError extends Error {
  override name = 'ClientConfigError'
  /** The problems found, one sentence each (one for most errors). */
  readonly problems: readonly string[]
  /** What kubectl prints for this error (without the trailing newline). */
  readonly display: string

  constructor(message: string, options: { problems?: readonly string[]; display?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.problems = options.problems ?? [message]
    this.display = options.display ?? (message.startsWith('error: ') ? message : `error: ${message}`)
  }

  /**
   * Problems found while checking the merged configuration (clientcmd's ConfirmUsable):
   * kubectl prints them as `Error in configuration: ...`, several as a `* ` list.
   */
  static invalid(problems: readonly string[]): ClientConfigError {
    const message = problems.length === 1 ? problems[0] : `invalid configuration: [${problems.join(', ')}]`
    const display = problems.length === 1
      ? `Error in configuration: ${problems[0]}`
      : `Error in configuration: \n${problems.map((p) => `* ${p}`).join('\n')}`
    return new ClientConfigError(message, { problems, display })
  }
}

/** How a request failed to reach the server. */
export type UnreachableKind = 'refused' | 'dns' | 'tls' | 'timeout' | 'reset' | 'other'

/**
 * No answer from the server: connection refused, name not resolved, TLS handshake or
 * certificate failure, timeout, connection reset. `message` is what kubectl prints
 * (`Unable to connect to the server: <detail>`, or its own sentence for a refused
 * connection); `detail` is the Go error text kubectl builds that from; `cause` is the
 * underlying Node error.
 */
export class UnreachableError extends Error {
  override name = 'UnreachableError'
  readonly kind: UnreachableKind
  /** Go's text for the failure, e.g. `dial tcp 127.0.0.1:1: connect: connection refused`. */
  readonly detail: string
  /** The URL requested. */
  readonly url: string

  constructor(kind: UnreachableKind, detail: string, url: string, options: { message?: string; cause?: unknown } = {}) {
    super(options.message ?? `Unable to connect to the server: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause })
    this.kind = kind
    this.detail = detail
    this.url = url
  }
}
