/** Secure serving and TLS: the port in P5, certificate files, versions and suites in P6. */
import { CIPHER_SUITES, TLS_VERSIONS } from '../../options/enums.js'
import type { NamedCertKey } from '../../options/types.js'
import type { Rule } from '../rule.js'

/** The reference also accepts these older spellings of two CHACHA20 suites. */
const LEGACY_CIPHER_ALIASES = ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305']

export const secureServingRules: Rule[] = [
  {
    id: 'SEC-1',
    phase: 'validate',
    check(ctx, report) {
      const port = ctx.value<number>('secure-port') ?? 6443
      if (port < 1 || port > 65535) {
        report.error(`--secure-port ${port} must be between 1 and 65535, inclusive. It cannot be turned off with 0`, {
          option: '--secure-port',
          value: ctx.text('secure-port'),
          remedy: 'choose a port from 1 to 65535 (default 6443)',
        })
      }
    },
  },
]

export const tlsConfigRules: Rule[] = [
  {
    id: 'SEC-2',
    phase: 'config',
    check(ctx, report) {
      const cert = ctx.text('tls-cert-file') ?? ''
      const key = ctx.text('tls-private-key-file') ?? ''
      if ((cert === '') !== (key === '')) {
        report.error('missing filename for serving cert', {
          option: cert === '' ? '--tls-cert-file' : '--tls-private-key-file',
          remedy: 'give both --tls-cert-file and --tls-private-key-file, or neither (a self-signed pair is generated)',
        })
      }
    },
  },
  {
    id: 'SEC-3',
    phase: 'config',
    check(ctx, report) {
      const version = ctx.text('tls-min-version')
      if (version && !(TLS_VERSIONS as readonly string[]).includes(version)) {
        report.error(`unknown tls version ${JSON.stringify(version)}`, {
          option: '--tls-min-version',
          value: version,
          remedy: `one of ${TLS_VERSIONS.join(', ')}`,
        })
      }
    },
  },
  {
    id: 'SEC-4',
    phase: 'config',
    check(ctx, report) {
      const known = new Set<string>([...CIPHER_SUITES, ...LEGACY_CIPHER_ALIASES])
      for (const suite of ctx.list('tls-cipher-suites')) {
        if (!known.has(suite)) {
          report.error(`Cipher suite ${suite} not supported or doesn't exist`, {
            option: '--tls-cipher-suites',
            value: suite,
            remedy: 'see the suite lists in `client server start --help`',
          })
        }
      }
    },
  },
  {
    id: 'SEC-SNI',
    phase: 'config',
    check(ctx, report) {
      const entries = (ctx.value<NamedCertKey[]>('tls-sni-cert-key') ?? [])
      for (const entry of entries) {
        if (entry.certFile === '' || entry.keyFile === '') {
          report.error('failed to load SNI cert and key: certificate and key paths must not be empty', {
            option: '--tls-sni-cert-key',
            value: `${entry.certFile},${entry.keyFile}`,
          })
        }
      }
    },
  },
]
