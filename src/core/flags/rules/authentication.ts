/** Authentication options (spec section 5; the reference's authentication checks). */
import { type GoUrl, goParseUrl } from '../../options/go-url.js'
import { loadYaml } from '../../util/yaml.js'
import { readFileSync } from 'node:fs'
import { posix } from 'node:path'
import type { Rule } from '../rule.js'

const OIDC_OPTIONS = [
  'oidc-issuer-url',
  'oidc-client-id',
  'oidc-ca-file',
  'oidc-username-claim',
  'oidc-username-prefix',
  'oidc-groups-claim',
  'oidc-groups-prefix',
  'oidc-signing-algs',
  'oidc-required-claim',
]

const REQUEST_HEADER_STANDARDS: Array<[string, string]> = [
  ['requestheader-username-headers', 'X-Remote-User'],
  ['requestheader-group-headers', 'X-Remote-Group'],
  ['requestheader-extra-headers-prefix', 'X-Remote-Extra-'],
]

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

export const authenticationRules: Rule[] = [
  {
    id: 'AUTHN-1',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.has('authentication-config')) return
      const given = OIDC_OPTIONS.filter((name) => ctx.has(name))
      if (given.length > 0 && (!ctx.text('oidc-issuer-url') || !ctx.text('oidc-client-id'))) {
        report.error('oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set', {
          option: ctx.text('oidc-issuer-url') ? '--oidc-client-id' : '--oidc-issuer-url',
          remedy: 'give both --oidc-issuer-url and --oidc-client-id',
        })
      }
    },
  },
  {
    id: 'AUTHN-3',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.has('authentication-config') && OIDC_OPTIONS.some((name) => ctx.has(name))) {
        report.error('authentication-config file and oidc-* flags are mutually exclusive', {
          option: '--authentication-config',
          remedy: 'configure the JWT authenticator in the --authentication-config file and drop the --oidc-* options',
        })
      }
    },
  },
  {
    id: 'AUTHN-18',
    phase: 'config',
    check(ctx, report) {
      const file = ctx.text('authentication-config')
      if (!file || !ctx.has('anonymous-auth')) return
      let config: unknown
      try {
        config = loadYaml(readFileSync(file, 'utf8'))
      } catch {
        // The file is read by the server; a flag-only check cannot tell what it configures.
        return
      }
      if (config && typeof config === 'object' && 'anonymous' in config) {
        report.error(
          'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file',
          { option: '--anonymous-auth', remedy: 'drop --anonymous-auth; the file configures anonymous access' },
        )
      }
    },
  },
  {
    id: 'AUTHN-5',
    phase: 'validate',
    check(ctx, report) {
      const seen = new Set<string>()
      const option = '--service-account-issuer'
      for (const issuer of ctx.list('service-account-issuer')) {
        if (issuer === '') {
          report.error('service-account-issuer should not be an empty string', { option })
          continue
        }
        if (issuer.includes(':')) {
          let url: GoUrl | undefined
          try {
            url = goParseUrl(issuer)
          } catch (err) {
            report.error(`service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL: ${(err as Error).message}`, {
              option,
              value: issuer,
            })
          }
          if (url && url.scheme !== 'https') {
            report.warning(`service-account-issuer ${JSON.stringify(issuer)} should be an https URL`, { option, value: issuer })
          }
        }
        if (seen.has(issuer)) report.error(`service-account-issuer ${JSON.stringify(issuer)} is already specified`, { option, value: issuer })
        seen.add(issuer)
      }
      if (ctx.forReference && ctx.list('service-account-issuer').length === 0) {
        report.error('service-account-issuer is a required flag', { option, remedy: 'e.g. --service-account-issuer=https://kubernetes.default.svc.cluster.local' })
      }
    },
  },
  {
    id: 'AUTHN-9',
    phase: 'validate',
    check(ctx, report) {
      if (!ctx.forReference) return
      if (ctx.list('service-account-key-file').length === 0 && !ctx.text('service-account-signing-endpoint') && !ctx.text('tls-private-key-file')) {
        report.error('either `--service-account-key-file` or `--service-account-signing-endpoint` must be set', {
          option: '--service-account-key-file',
        })
      }
    },
  },
  {
    id: 'AUTHN-10',
    phase: 'validate',
    check(ctx, report) {
      const uri = ctx.text('service-account-jwks-uri')
      if (!uri) return
      let url: GoUrl
      try {
        url = goParseUrl(uri)
      } catch (err) {
        report.error(`service-account-jwks-uri must be a valid URL: ${(err as Error).message}`, { option: '--service-account-jwks-uri', value: uri })
        return
      }
      if (url.scheme !== 'https') {
        report.error(`service-account-jwks-uri requires https scheme, parsed as: ${uri}`, { option: '--service-account-jwks-uri', value: uri })
      }
    },
  },
  {
    id: 'AUTHN-11',
    phase: 'validate',
    check(ctx, report) {
      for (const name of ['requestheader-username-headers', 'requestheader-group-headers', 'requestheader-extra-headers-prefix', 'requestheader-allowed-names']) {
        if (ctx.list(name).some((item) => item.trim() === '')) {
          report.error(`empty value in ${JSON.stringify(name)}`, { option: `--${name}`, value: ctx.joinedText(name), remedy: 'remove the empty item' })
        }
      }
      for (const [name, standard] of REQUEST_HEADER_STANDARDS) {
        const items = ctx.list(name)
        if (items.length > 0 && !items.some((item) => item.toLowerCase() === standard.toLowerCase())) {
          report.warning(`--${name} is set without specifying the standard ${standard} header - API aggregation will not work`, {
            option: `--${name}`,
            remedy: `include ${standard}`,
          })
        }
      }
    },
  },
  {
    id: 'AUTHN-12',
    phase: 'validate',
    check(ctx, report) {
      const items = ctx.list('requestheader-uid-headers')
      if (items.length === 0) return
      if (!ctx.gate('RemoteRequestHeaderUID')) {
        report.error('--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled', {
          option: '--requestheader-uid-headers',
          remedy: 'add RemoteRequestHeaderUID=true to --feature-gates',
        })
      } else if (!items.some((item) => item.toLowerCase() === 'x-remote-uid')) {
        report.error('--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work', {
          option: '--requestheader-uid-headers',
          remedy: 'include X-Remote-Uid',
        })
      }
    },
  },
  {
    id: 'AUTHN-4',
    phase: 'config',
    check(ctx, report) {
      const issuer = ctx.text('oidc-issuer-url')
      if (!issuer || ctx.has('authentication-config')) return
      const url = parseUrl(issuer)
      const prefix = `invalid authentication configuration: jwt[0].issuer.url: Invalid value: ${JSON.stringify(issuer)}: `
      const option = '--oidc-issuer-url'
      if (!url) report.error(`${prefix}URL must be a valid URL`, { option, value: issuer })
      else if (url.protocol !== 'https:') report.error(`${prefix}URL scheme must be https`, { option, value: issuer, remedy: 'use an https:// issuer URL' })
      else if (url.username || url.password) report.error(`${prefix}URL must not contain a username or password`, { option, value: issuer })
      else if (url.search) report.error(`${prefix}URL must not contain a query`, { option, value: issuer })
      else if (url.hash) report.error(`${prefix}URL must not contain a fragment`, { option, value: issuer })
      else if (ctx.list('service-account-issuer').includes(issuer)) {
        report.error(`${prefix}URL must not overlap with disallowed issuers: [${ctx.list('service-account-issuer').join(' ')}]`, { option, value: issuer })
      }
    },
  },
]

/** --service-account-max-token-expiration is checked while the reference completes options (P4). */
export const tokenExpirationRules: Rule[] = [
  {
    id: 'AUTHN-15',
    phase: 'complete',
    check(ctx, report) {
      const ms = ctx.value<number>('service-account-max-token-expiration')
      if (ms === undefined || ms === 0) return
      if (ms < 3_600_000 || ms > 2 ** 32 * 1000) {
        report.error('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds', {
          option: '--service-account-max-token-expiration',
          value: ctx.text('service-account-max-token-expiration'),
        })
      }
    },
  },
]

/** Token issuance: signing key, issuer and audiences together, or an external signer. */
export const serviceAccountRules: Rule[] = [
  {
    id: 'SA-1',
    phase: 'validate',
    check(ctx, report) {
      const signingKey = ctx.text('service-account-signing-key-file') ?? ''
      const issuers = ctx.list('service-account-issuer')
      const attempted = signingKey !== '' || (issuers[0] ?? '') !== '' || ctx.list('api-audiences').length > 0
      const endpoint = ctx.text('service-account-signing-endpoint') ?? ''
      const succeeded = issuers.length > 0 && issuers[0] !== '' && (signingKey !== '' || endpoint !== '')
      if (!attempted) {
        if (ctx.forReference && endpoint === '') {
          report.error('--service-account-signing-key-file and --service-account-issuer are required flags', {
            option: '--service-account-signing-key-file',
          })
        }
        return
      }
      if (!succeeded) {
        report.error('--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together', {
          option: signingKey === '' ? '--service-account-signing-key-file' : '--service-account-issuer',
          remedy: 'give the signing key file and the issuer (the audiences default to the issuer)',
        })
      }
    },
  },
  {
    id: 'SA-3',
    phase: 'validate',
    check(ctx, report) {
      const endpoint = ctx.text('service-account-signing-endpoint')
      if (!endpoint) return
      const option = '--service-account-signing-endpoint'
      if (ctx.text('service-account-signing-key-file') || ctx.list('service-account-key-file').length > 0) {
        report.error(
          "can't set `--service-account-signing-key-file` and/or `--service-account-key-file` with `--service-account-signing-endpoint` (They are mutually exclusive)",
          { option },
        )
      }
      if (!ctx.gate('ExternalServiceAccountTokenSigner')) {
        report.error('setting `--service-account-signing-endpoint` requires enabling ExternalServiceAccountTokenSigner feature gate', {
          option,
          remedy: 'add ExternalServiceAccountTokenSigner=true to --feature-gates',
        })
      }
      const clean = endpoint.startsWith('@') ? endpoint.length > 1 : endpoint.startsWith('/') && posix.normalize(endpoint) === endpoint
      if (!clean) {
        report.error(
          `invalid value ${JSON.stringify(endpoint)} passed for \`--service-account-signing-endpoint\`, should be a valid location on the filesystem or must be prefixed with @ to name UDS in abstract namespace`,
          { option, value: endpoint },
        )
      }
    },
  },
  {
    id: 'SA-6',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.forReference) return
      const verifier = ctx.list('service-account-key-file').length > 0 || Boolean(ctx.text('tls-private-key-file'))
      if (ctx.text('service-account-signing-key-file') && !verifier) {
        report.error('--service-account-signing-key-file needs --service-account-key-file with the key that verifies the tokens it signs', {
          option: '--service-account-key-file',
          remedy: 'give --service-account-key-file (the public key, or the same key file)',
        })
      }
    },
  },
]
