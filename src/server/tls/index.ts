/**
 * TLS serving for `client server start` (spec 4.4): the default serving certificate (from
 * --tls-cert-file/--tls-private-key-file, or generated into --cert-dir), SNI certificates,
 * minimum version, cipher suites and ALPN, as options for `https.createServer` /
 * `http2.createSecureServer`.
 *
 *     const serving = await prepareServing({ ... })
 *     for (const w of serving.warnings) log.warn(w)
 *     const server = http2.createSecureServer({ ...serving.secureOptions, allowHTTP1: true }, handler)
 *     serving.attach(server) // IP patterns of --tls-sni-cert-key for clients without SNI
 *
 * Note: http2.createSecureServer replaces `ALPNProtocols` with ['h2'], plus 'http/1.1' when
 * `allowHTTP1` is true; https.createServer keeps it (its own default is ['http/1.1']).
 *
 * Errors the user can fix are thrown as TlsConfigError with a complete message.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import tls from 'node:tls'
import { resolveTlsPolicy, type KeyAuth } from './ciphers.js'
import { CA_CERT_FILE, CA_KEY_FILE, SERVING_CERT_FILE, SERVING_KEY_FILE, defaultCertDir, ensureSelfSigned } from './cert-dir.js'
import { TlsConfigError, describeCause } from './errors.js'
import { isUnspecifiedAddress, nameKey, neededNames } from './names.js'
import { describeKey, keyAuth, loadCertKeyPair, validityProblem, type LoadedPair } from './pem.js'
import { attachLocalAddressSelection, buildNameMap, createSniCallback, namesFromCertificate, type SniCallback, type SniCertificate } from './sni.js'

export { TlsConfigError } from './errors.js'
export { defaultCertDir } from './cert-dir.js'
export { CA_CERT_FILE, CA_KEY_FILE, SERVING_CERT_FILE, SERVING_KEY_FILE }
export { TLS12_SUITES, TLS13_SUITES, TLS_VERSION_MAP } from './ciphers.js'

/** One `--tls-sni-cert-key`. */
export interface SniCertKey {
  certFile: string
  keyFile: string
  /** Explicit patterns; empty: the names in the certificate. */
  names: string[]
}

export interface ServingOptions {
  /** --cert-dir; default `defaultCertDir()`. Ignored when certFile and keyFile are given. */
  certDir?: string
  /** --tls-cert-file (leaf first, CA chain optionally concatenated after it). */
  certFile?: string
  /** --tls-private-key-file. */
  keyFile?: string
  /** --tls-sni-cert-key, in command-line order. */
  sniCertKeys: SniCertKey[]
  /** --tls-min-version: VersionTLS10..VersionTLS13. */
  minVersion?: string
  /** --tls-cipher-suites, Go/IANA names. */
  cipherSuites: string[]
  /** --advertise-address: included in the generated certificate. */
  advertiseAddress?: string
  /** --bind-address: included in the generated certificate when it is a specific address. */
  bindAddress: string
  /** The `kubernetes` service's cluster IP (the first of --service-cluster-ip-range): included in the generated certificate. */
  serviceIp?: string
  /**
   * ALPN protocols to offer, e.g. ['h2', 'http/1.1']; empty: none set here. (http2 secure
   * servers decide their own list from `allowHTTP1`; see the file comment.)
   */
  alpn: string[]
  /** The clock, for tests. */
  now?: () => Date
  /** The host name for the generated certificate; default os.hostname(). For tests. */
  hostname?: string
}

/** Options to spread into `https.createServer` / `http2.createSecureServer`. */
export type SecureServerOptions = tls.SecureContextOptions & {
  requestCert?: boolean
  rejectUnauthorized?: boolean
  SNICallback?: SniCallback
  minVersion?: tls.SecureVersion
  ALPNProtocols?: string[]
}

export interface ServingTls {
  secureOptions: SecureServerOptions
  /** The CA clients should trust: our generated CA; undefined when the user supplied the certificate. */
  caCertPem?: string
  /** Files of the default serving pair in use. */
  certFiles: { cert: string; key: string }
  /** The default pair's certificates as served, leaf first. */
  servingChainPem: string
  /** Whether the default serving pair is the self-signed one from --cert-dir (new or reused). */
  generated: boolean
  /** Which files of --cert-dir this call wrote (both false when everything was reused). */
  created: { ca: boolean; serving: boolean }
  /** Why files of --cert-dir were (re)generated, e.g. `... does not cover 10.0.0.6`, for logs. */
  generationReasons: string[]
  /** The CA files in --cert-dir, when generated. */
  caFiles?: { cert: string; key: string }
  /** SNI certificates and the names they are chosen for, for logs. */
  sni: Array<{ certFile: string; keyFile: string; names: string[]; explicit: boolean }>
  /** Things worth logging at start-up (weak settings, expired user certificates...). */
  warnings: string[]
  /**
   * Installs local-address certificate selection on the created server, for IP patterns of
   * --tls-sni-cert-key and clients that send no SNI. Harmless without IP patterns.
   */
  attach(server: tls.Server): void
}

function describeAuthNeed(auth: ReadonlySet<KeyAuth>): string {
  return [...auth].map((a) => (a === 'rsa' ? 'RSA' : 'ECDSA')).join(' or ')
}

function createContext(pair: LoadedPair, common: tls.SecureContextOptions, option: string): tls.SecureContext {
  try {
    return tls.createSecureContext({ ...common, cert: pair.certPem, key: pair.keyPem })
  } catch (err) {
    throw new TlsConfigError(`${option}: the TLS library refuses ${pair.certFile} with ${pair.keyFile}: ${describeCause(err)}`, {
      option,
      file: pair.certFile,
      cause: err,
    })
  }
}

/** What serving checks as it loads each certificate: the policy, the time, and where warnings go. */
interface LoadContext {
  readonly policy: ReturnType<typeof resolveTlsPolicy>
  readonly common: tls.SecureContextOptions
  readonly now: Date
  readonly warnings: string[]
}

/** Warns when a TLS 1.2 cipher-suite list cannot be used with the pair's key. */
function checkKeyFits(ctx: LoadContext, pair: LoadedPair, what: string): void {
  const auth = keyAuth(pair.key)
  if (ctx.policy.tls12Auth && (!auth || !ctx.policy.tls12Auth.has(auth))) {
    ctx.warnings.push(
      `--tls-cipher-suites lists TLS 1.2 suites for ${describeAuthNeed(ctx.policy.tls12Auth)} keys only, but ${what} ${pair.certFile} has a ${describeKey(pair.key)} key: clients limited to TLS 1.2 cannot connect with it`,
    )
  }
}

/** The default serving pair: the files given, or a self-signed pair in the certificate directory. */
interface DefaultPair {
  pair: LoadedPair
  caCertPem?: string
  generated: boolean
  created: { ca: boolean; serving: boolean }
  caFiles?: { cert: string; key: string }
  generationReasons: string[]
}

async function defaultServingPair(options: ServingOptions, ctx: LoadContext): Promise<DefaultPair> {
  const certFile = options.certFile ?? ''
  const keyFile = options.keyFile ?? ''
  if (certFile !== '' || keyFile !== '') {
    if (certFile === '' || keyFile === '') {
      throw new TlsConfigError('--tls-cert-file and --tls-private-key-file must be given together (or neither, to have a self-signed pair generated)', {
        option: certFile === '' ? '--tls-cert-file' : '--tls-private-key-file',
      })
    }
    const pair = loadCertKeyPair(certFile, keyFile, { cert: '--tls-cert-file', key: '--tls-private-key-file', option: '--tls-cert-file' })
    const problem = validityProblem(pair.leaf, ctx.now)
    if (problem) ctx.warnings.push(`--tls-cert-file ${certFile} ${problem}`)
    checkKeyFits(ctx, pair, '--tls-cert-file')
    return { pair, generated: false, created: { ca: false, serving: false }, generationReasons: [] }
  }
  const hostname = options.hostname ?? os.hostname()
  const names = neededNames({ advertiseAddress: options.advertiseAddress, bindAddress: options.bindAddress, hostname, ...(options.serviceIp ? { serviceIp: options.serviceIp } : {}) })
  const publicHost = [options.advertiseAddress, options.bindAddress]
    .find((a) => a !== undefined && !isUnspecifiedAddress(a))?.trim() ?? 'localhost'
  const request: Parameters<typeof ensureSelfSigned>[0] = {
    dir: options.certDir && options.certDir !== '' ? options.certDir : defaultCertDir(),
    names,
    publicHost,
    now: ctx.now,
  }
  if (ctx.policy.tls12Auth) request.keyAuth = ctx.policy.tls12Auth
  const sniKeyTypes = sniKeyTypesOf(options.sniCertKeys ?? [])
  if (sniKeyTypes.size > 0) request.sniKeyTypes = sniKeyTypes
  const result = await ensureSelfSigned(request)
  return {
    pair: result.serving,
    caCertPem: result.caCertPem,
    generated: true,
    created: result.created,
    caFiles: { cert: result.caCertFile, key: result.caKeyFile },
    generationReasons: result.created.ca || result.created.serving ? result.reasons : [],
  }
}

/**
 * The key types of the `--tls-sni-cert-key` keys that can be read, for the type of a generated
 * default pair; loadSniCertificates reads them again and reports what is wrong with them.
 */
function sniKeyTypesOf(entries: NonNullable<ServingOptions['sniCertKeys']>): Set<KeyAuth> {
  const types = new Set<KeyAuth>()
  for (const entry of entries) {
    try {
      const auth = keyAuth(crypto.createPrivateKey(fs.readFileSync(entry.keyFile)))
      if (auth) types.add(auth)
    } catch {
      // Reported when the pairs are loaded.
    }
  }
  return types
}

/** The `--tls-sni-cert-key` pairs, loaded and checked, each with the names it is chosen for. */
async function loadSniCertificates(entries: NonNullable<ServingOptions['sniCertKeys']>, ctx: LoadContext): Promise<SniCertificate[]> {
  const sniCerts: SniCertificate[] = []
  for (const [index, entry] of entries.entries()) {
    if (!entry.certFile || !entry.keyFile) {
      throw new TlsConfigError('--tls-sni-cert-key: failed to load SNI cert and key: certificate and key paths must not be empty', {
        option: '--tls-sni-cert-key',
      })
    }
    const sniPair = loadCertKeyPair(entry.certFile, entry.keyFile, {
      cert: '--tls-sni-cert-key certificate',
      key: '--tls-sni-cert-key key',
      option: '--tls-sni-cert-key',
    })
    const problem = validityProblem(sniPair.leaf, ctx.now)
    if (problem) ctx.warnings.push(`--tls-sni-cert-key certificate ${entry.certFile} ${problem}`)
    checkKeyFits(ctx, sniPair, '--tls-sni-cert-key certificate')
    let fromCert: string[]
    try {
      fromCert = await namesFromCertificate(sniPair.leaf.toString())
    } catch (err) {
      throw new TlsConfigError(`--tls-sni-cert-key: cannot read the names of the certificate in ${entry.certFile}: ${describeCause(err)}`, {
        option: '--tls-sni-cert-key',
        file: entry.certFile,
        cause: err,
      })
    }
    const explicitNames = [...new Set((entry.names ?? []).map(nameKey).filter((n) => n !== ''))]
    if (explicitNames.length === 0 && fromCert.length === 0) {
      ctx.warnings.push(`--tls-sni-cert-key certificate ${entry.certFile} has no usable names (CN or SANs) and no names were given: it is never chosen`)
    }
    sniCerts.push({
      index,
      pair: sniPair,
      explicitNames,
      certificateNames: fromCert,
      context: createContext(sniPair, ctx.common, '--tls-sni-cert-key'),
    })
  }
  return sniCerts
}

/** The ALPN protocols offered, without empty or repeated ones. */
function alpnProtocols(requested: readonly string[]): string[] {
  const alpn = requested.filter((p) => p !== '')
  for (const protocol of alpn) {
    if (Buffer.byteLength(protocol) > 255) {
      throw new TlsConfigError(`ALPN protocol ${JSON.stringify(protocol.slice(0, 40))}... is longer than 255 bytes`)
    }
  }
  return [...new Set(alpn)]
}

/** Loads or generates everything TLS serving needs; throws TlsConfigError for user errors. */
export async function prepareServing(options: ServingOptions): Promise<ServingTls> {
  const policy = resolveTlsPolicy(options.minVersion, options.cipherSuites ?? [])
  const common: tls.SecureContextOptions = {}
  if (policy.minVersion) common.minVersion = policy.minVersion
  if (policy.ciphers) common.ciphers = policy.ciphers
  const ctx: LoadContext = { policy, common, now: options.now?.() ?? new Date(), warnings: [...policy.warnings] }

  const { pair, caCertPem, generated, created, caFiles, generationReasons } = await defaultServingPair(options, ctx)
  const defaultContext = createContext(pair, common, (options.certFile ?? '') !== '' ? '--tls-cert-file' : '--cert-dir')
  const sniCerts = await loadSniCertificates(options.sniCertKeys ?? [], ctx)
  const nameMap = buildNameMap(sniCerts)

  // Client certificates are asked for but not required, and verified by the authenticators
  // (src/server/authentication/x509.ts), as the reference's RequestClientCert. No acceptable
  // authorities are named, so a client always presents the certificate it has.
  const secureOptions: SecureServerOptions = { ...common, cert: pair.certPem, key: pair.keyPem, requestCert: true, rejectUnauthorized: false }
  if (nameMap.size > 0) secureOptions.SNICallback = createSniCallback(nameMap, defaultContext)
  const alpn = alpnProtocols(options.alpn ?? [])
  if (alpn.length > 0) secureOptions.ALPNProtocols = alpn

  const result: ServingTls = {
    secureOptions,
    certFiles: { cert: pair.certFile, key: pair.keyFile },
    servingChainPem: pair.certPem,
    generated,
    created,
    generationReasons,
    sni: sniCerts.map((c) => ({
      certFile: c.pair.certFile,
      keyFile: c.pair.keyFile,
      names: c.explicitNames.length > 0 ? c.explicitNames : c.certificateNames,
      explicit: c.explicitNames.length > 0,
    })),
    warnings: ctx.warnings,
    attach(server: tls.Server): void {
      attachLocalAddressSelection(server, nameMap)
    },
  }
  if (caCertPem !== undefined) result.caCertPem = caCertPem
  if (caFiles) result.caFiles = caFiles
  return result
}
