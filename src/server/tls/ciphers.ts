/**
 * `--tls-min-version` and `--tls-cipher-suites`: Go (IANA) names to Node/OpenSSL settings.
 *
 * - TLS 1.3 suites keep their IANA names: Node's `ciphers` option routes every `TLS_*` entry to
 *   OpenSSL's TLS 1.3 list (SSL_CTX_set_ciphersuites) and the rest to the TLS 1.2 list.
 * - When no TLS 1.3 suite is listed, the TLS 1.3 list stays OpenSSL's default, which is also what
 *   Go does (Go never restricts TLS 1.3 suites). Unlike Go, listed TLS 1.3 suites do restrict
 *   TLS 1.3.
 * - When only TLS 1.3 suites are listed, no TLS 1.2 suite is left, so clients limited to TLS 1.2
 *   cannot connect (as with Go, whose list then holds no usable TLS 1.2 suite).
 * - With no `--tls-cipher-suites`, TLS 1.2 and older offer Go's default suites (crypto/tls
 *   defaultCipherSuites, what the reference serves with): ECDHE key exchange with AES-GCM,
 *   ChaCha20-Poly1305 or AES-CBC-SHA, in Go's order; no static-RSA key exchange, no 3DES, no
 *   CBC-SHA256, no DHE (Node's own defaults admit several of those).
 * - OpenSSL 3 refuses TLS 1.0 and 1.1 at security level 1 and above (they sign with SHA-1/MD5),
 *   so when `--tls-min-version` asks for them the security level is lowered to 0 with
 *   `@SECLEVEL=0`, and only then.
 */
import tls from 'node:tls'
import { TlsConfigError, describeCause } from './errors.js'

/** `--tls-min-version` values to Node's `minVersion`. */
export const TLS_VERSION_MAP: Readonly<Record<string, tls.SecureVersion>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
}

/** TLS 1.3 suites: the same names in Go, IANA and OpenSSL. */
export const TLS13_SUITES: ReadonlySet<string> = new Set(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'])

/** Go (IANA) names of TLS 1.0-1.2 suites to OpenSSL names. */
export const TLS12_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  // Insecure ones.
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
}

/**
 * Go's default TLS 1.0-1.2 suites, in its preference order (cipherSuitesPreferenceOrder minus
 * disabledCipherSuites, rsaKexCiphers and tdesCiphers). TLS 1.3 needs no list: Go's defaults
 * and OpenSSL's are the same three suites.
 */
export const GO_DEFAULT_TLS12_SUITES: readonly string[] = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
]

/** Appended to the TLS 1.2 cipher list when TLS 1.0/1.1 are allowed. */
export const LEGACY_SECLEVEL = '@SECLEVEL=0'

export type KeyAuth = 'rsa' | 'ecdsa'

export interface TlsPolicy {
  /** Node's `minVersion`; undefined: Node's default (TLS 1.2, as Go's). */
  minVersion?: tls.SecureVersion
  /** Node's `ciphers`: the listed suites, else Go's defaults. */
  ciphers?: string
  /** OpenSSL names of the listed suites, in order, without duplicates. */
  openssl: string[]
  /** Whether the security level was lowered for TLS 1.0/1.1. */
  legacySecurityLevel: boolean
  /**
   * Key types the listed TLS 1.2 suites can authenticate with; undefined: any (no TLS 1.2
   * suite listed, or TLS 1.2 not allowed).
   */
  tls12Auth?: ReadonlySet<KeyAuth>
  warnings: string[]
}

function authOf(goName: string): KeyAuth {
  return goName.startsWith('TLS_ECDHE_ECDSA_') ? 'ecdsa' : 'rsa'
}

const honourable = new Map<string, string | undefined>()

/** Undefined when OpenSSL takes this cipher string, else its complaint. */
function opensslRefuses(ciphers: string): string | undefined {
  if (!honourable.has(ciphers)) {
    try {
      tls.createSecureContext({ ciphers })
      honourable.set(ciphers, undefined)
    } catch (err) {
      honourable.set(ciphers, describeCause(err))
    }
  }
  return honourable.get(ciphers)
}

function versionRank(v: tls.SecureVersion): number {
  return ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'].indexOf(v)
}

/** Turns `--tls-min-version` and `--tls-cipher-suites` into Node options; throws TlsConfigError. */
export function resolveTlsPolicy(minVersionFlag: string | undefined, suites: readonly string[]): TlsPolicy {
  const warnings: string[] = []
  let minVersion: tls.SecureVersion | undefined
  if (minVersionFlag !== undefined && minVersionFlag !== '') {
    minVersion = TLS_VERSION_MAP[minVersionFlag]
    if (!minVersion) {
      throw new TlsConfigError(`--tls-min-version: unknown tls version ${JSON.stringify(minVersionFlag)} (one of ${Object.keys(TLS_VERSION_MAP).join(', ')})`, {
        option: '--tls-min-version',
      })
    }
  }
  const legacy = minVersion !== undefined && versionRank(minVersion) < versionRank('TLSv1.2')
  const allows12 = minVersion === undefined || versionRank(minVersion) <= versionRank('TLSv1.2')

  const tls13: string[] = []
  const tls12: string[] = []
  const auth = new Set<KeyAuth>()
  for (const raw of suites) {
    const name = raw.trim()
    if (name === '') continue
    if (TLS13_SUITES.has(name)) {
      if (!tls13.includes(name)) tls13.push(name)
      continue
    }
    const openssl = TLS12_SUITES[name]
    if (!openssl) {
      throw new TlsConfigError(`--tls-cipher-suites: Cipher suite ${name} not supported or doesn't exist`, { option: '--tls-cipher-suites' })
    }
    auth.add(authOf(name))
    if (!tls12.includes(openssl)) tls12.push(openssl)
  }

  // The security level is part of the TLS 1.2 list; it cannot stand alone.
  const useLegacyLevel = legacy && (suites.length === 0 || tls12.length > 0)
  const levelSuffix = useLegacyLevel ? `:${LEGACY_SECLEVEL}` : ''
  for (const raw of suites) {
    const name = raw.trim()
    if (name === '') continue
    const openssl = TLS13_SUITES.has(name) ? name : TLS12_SUITES[name]!
    const refusal = opensslRefuses(TLS13_SUITES.has(name) ? openssl : `${openssl}${levelSuffix}`)
    if (refusal !== undefined) {
      throw new TlsConfigError(
        `--tls-cipher-suites: ${name} cannot be honoured by this server's TLS library (OpenSSL ${process.versions.openssl}): ${refusal}`,
        { option: '--tls-cipher-suites' },
      )
    }
  }

  let ciphers: string | undefined
  if (suites.length > 0) {
    ciphers = [...tls13, ...tls12].join(':') + (tls12.length > 0 ? levelSuffix : '')
    if (tls12.length === 0 && allows12) {
      warnings.push('--tls-cipher-suites lists only TLS 1.3 suites: clients limited to TLS 1.2 or older cannot connect')
    }
  } else {
    ciphers = GO_DEFAULT_TLS12_SUITES.map((name) => TLS12_SUITES[name]!).join(':') + levelSuffix
  }
  if (useLegacyLevel) {
    warnings.push(`--tls-min-version=${minVersionFlag}: OpenSSL's security level is lowered to 0 so that TLS 1.0/1.1 handshakes can work; this also admits weak keys and signatures`)
  }
  if (ciphers !== undefined) {
    const refusal = opensslRefuses(ciphers)
    if (refusal !== undefined) {
      throw new TlsConfigError(`--tls-cipher-suites: the TLS library refuses the suite list: ${refusal}`, { option: '--tls-cipher-suites' })
    }
  }

  const policy: TlsPolicy = { openssl: [...tls13, ...tls12], legacySecurityLevel: useLegacyLevel, warnings }
  if (minVersion !== undefined) policy.minVersion = minVersion
  if (ciphers !== undefined) policy.ciphers = ciphers
  if (tls12.length > 0 && allows12) policy.tls12Auth = auth
  return policy
}
