/**
 * A problem with the user's TLS configuration (flags, files in --cert-dir, the TLS library's
 * abilities). The message is complete and meant to be printed as is, without a stack trace.
 */
export class TlsConfigError extends Error {
  override readonly name = 'TlsConfigError'
  /** The command-line option the problem belongs to, e.g. `--tls-cert-file`. */
  readonly option?: string
  /** The file the problem was found in, when there is one. */
  readonly file?: string

  constructor(message: string, details: { option?: string; file?: string; cause?: unknown } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    if (details.option !== undefined) this.option = details.option
    if (details.file !== undefined) this.file = details.file
  }
}

/**
 * The readable part of an error from Node or OpenSSL: `error:1E08010C:DECODER routines::unsupported`
 * becomes `unsupported (DECODER routines)`; other messages are kept.
 */
export function describeCause(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined
  const message = e && typeof e.message === 'string' ? e.message : String(err)
  const openssl = /^error:[0-9A-Fa-f]+:([^:]*):[^:]*:(.+)$/.exec(message.split('\n')[0] ?? '')
  if (openssl) return openssl[1] ? `${openssl[2]} (${openssl[1]})` : openssl[2]!
  if (e && typeof e.code === 'string' && e.syscall && !message.startsWith(e.code)) return `${e.code}: ${message}`
  return message
}
