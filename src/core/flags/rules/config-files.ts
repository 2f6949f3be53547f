/**
 * The structured configuration files, read as the server reads them at start-up: a
 * `--authentication-config` or `--authorization-config` file that does not decode or validate
 * gets the same error `client server start` would stop with, CEL expressions compiled included,
 * without starting anything. The server's own parsers are used (not a copy), so the two can
 * never disagree. A file that cannot be read here is only a notice: manifests are often
 * validated away from the control-plane machine that holds the files.
 */
import { readFileSync } from 'node:fs'
import type { Reporter } from '../rule.js'
import { AuthenticationConfigError, loadAuthenticationConfigFile } from '../../../server/authentication/authentication-config.js'
import { DEFAULT_ISSUER } from '../../../server/authentication/service-account.js'
import { AuthorizationConfigFileError, parseAuthorizationConfig } from '../../../server/authorization/config.js'
import type { Rule } from '../rule.js'

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
      try {
        loadAuthenticationConfigFile(file, issuers.length > 0 ? issuers : [DEFAULT_ISSUER])
      } catch (err) {
        if (!(err instanceof AuthenticationConfigError)) throw err
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
      try {
        parseAuthorizationConfig(text)
      } catch (err) {
        if (!(err instanceof AuthorizationConfigFileError)) throw err
        report.error(`invalid authorization config: ${err.message}`, { option: '--authorization-config', value: file, remedy: 'fix the file; the server would not start with it' })
      }
    },
  },
]
