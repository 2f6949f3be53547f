/**
 * The structured configuration files, read as the server reads them at start-up: a
 * `--authentication-config`, `--authorization-config`, `--egress-selector-config-file` or
 * `--tracing-config-file` file that does not decode or validate
 * gets the same error `client server start` would stop with, CEL expressions compiled included,
 * without starting anything. The server's own parsers are used (not a copy), so the two can
 * never disagree. A file that cannot be read here is only a notice: manifests are often
 * validated away from the control-plane machine that holds the files.
 */
import { readFileSync } from 'node:fs'
import type { Reporter } from '../rule.js'
import type { Rule } from '../rule.js'
import { EgressSelectorConfigError, readEgressSelectorConfiguration } from '../../config-files/egress-selector-config.js'
import { TracingConfigError, readTracingConfiguration } from '../../config-files/tracing-config.js'

let parsers: typeof import('./config-file-parsers.js') | undefined

/** Whether a command line names one of the files these rules read. */
export function namesConfigFile(argv: readonly string[]): boolean {
  return argv.some((arg) => /^--?(authentication|authorization)-config(=|$)/.test(arg))
}

/**
 * Loads the server's parsers. They bring the CEL engine, which most command lines never need
 * and which would double `client flags validate`'s start-up: callers load them first when
 * `namesConfigFile` says a file is named.
 */
export async function loadConfigFileParsers(): Promise<void> {
  parsers ??= await import('./config-file-parsers.js')
}

function loadedParsers(): NonNullable<typeof parsers> {
  if (!parsers) throw new Error('the configuration file checks need loadConfigFileParsers() to have run first')
  return parsers
}

/** The file's text, or undefined after a notice that it was not read. */
function readOrNotice(file: string, option: string, report: Reporter): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    const why = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'is a directory' : e.message
    report.notice(`${option} ${file} was not read here (${why}): the server reads and validates it at start-up`, { option, value: file })
    return undefined
  }
}

export const configFileRules: Rule[] = [
  {
    id: 'AUTHN-CONFIG',
    phase: 'config',
    check(ctx, report) {
      const file = ctx.text('authentication-config')
      if (!file || readOrNotice(file, '--authentication-config', report) === undefined) return
      // The service-account issuers may not be JWT issuers too (the server's default when none is given).
      const issuers = ctx.list('service-account-issuer')
      const { authn, sa } = loadedParsers()
      try {
        authn.loadAuthenticationConfigFile(file, issuers.length > 0 ? issuers : [sa.DEFAULT_ISSUER])
      } catch (err) {
        if (!(err instanceof authn.AuthenticationConfigError)) throw err
        report.error(err.message, { option: '--authentication-config', value: file, remedy: 'fix the file; the server would not start with it' })
      }
    },
  },
  {
    id: 'AUTHZ-CONFIG',
    phase: 'config',
    check(ctx, report) {
      const file = ctx.text('authorization-config')
      if (!file) return
      const text = readOrNotice(file, '--authorization-config', report)
      if (text === undefined) return
      const { authz } = loadedParsers()
      try {
        authz.parseAuthorizationConfig(text)
      } catch (err) {
        if (!(err instanceof authz.AuthorizationConfigFileError)) throw err
        report.error(`invalid authorization config: ${err.message}`, { option: '--authorization-config', value: file, remedy: 'fix the file; the server would not start with it' })
      }
    },
  },
  {
    id: 'EGRESS-CONFIG',
    phase: 'config',
    check(ctx, report) {
      const file = ctx.text('egress-selector-config-file')
      if (!file || readOrNotice(file, '--egress-selector-config-file', report) === undefined) return
      try {
        readEgressSelectorConfiguration(file)
      } catch (err) {
        if (!(err instanceof EgressSelectorConfigError)) throw err
        report.error(err.message, { option: '--egress-selector-config-file', value: file, remedy: 'fix the file; the server would not start with it' })
      }
    },
  },
  {
    id: 'TRACING-CONFIG',
    phase: 'config',
    check(ctx, report) {
      const file = ctx.text('tracing-config-file')
      if (!file || readOrNotice(file, '--tracing-config-file', report) === undefined) return
      try {
        readTracingConfiguration(file)
      } catch (err) {
        if (!(err instanceof TracingConfigError)) throw err
        report.error(err.message, { option: '--tracing-config-file', value: file, remedy: 'fix the file; the server would not start with it' })
      }
    },
  },
]
