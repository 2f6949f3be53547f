/**
 * From the general client options and the kubeconfig files to what a request needs (server,
 * TLS material, headers, timeout), with kubectl's precedence (client-go clientcmd's
 * DirectClientConfig with cli-runtime's overrides):
 *
 * - `--context` selects the context (else `current-context`); `--cluster` and `--user`
 *   select entries over the context's.
 * - `--server`, `--certificate-authority`, `--insecure-skip-tls-verify`, `--tls-server-name`,
 *   `--client-certificate`, `--client-key`, `--token`, `--username`, `--password`, `--as*`
 *   override fields of the selected cluster and user. `--insecure-skip-tls-verify` or
 *   `--certificate-authority` replace the cluster's whole CA setting; `--server` drops the
 *   cluster's tls-server-name unless `--tls-server-name` is given too.
 * - The merged result is checked as clientcmd's ConfirmUsable checks it, with its texts.
 * - Credentials and impersonation are only sent over TLS, as kubectl does.
 *
 * One deliberate difference: kubectl falls back to http://localhost:8080 when nothing names
 * a server; this client says so instead.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import { ClientConfigError } from './errors.js'
import { ExecCredentialProvider, execConfigProblems } from './exec-credential.js'
import { goPathErrorText, readFileGo } from './file-errors.js'
import type { ClientFlags } from './flags.js'
import { impersonationHeaders, parseUserExtras } from './impersonation.js'
import { type KubeCluster, type KubeUser, loadKubeconfig } from './kubeconfig.js'
import { parseRequestTimeout } from './request-timeout.js'
import { userAgent } from './user-agent.js'

export interface ConnectionTls {
  ca?: Buffer
  cert?: Buffer
  key?: Buffer
  insecureSkipVerify: boolean
  serverName?: string
}

export interface Connection {
  /** Base URL: scheme, host[:port] and an optional path prefix, without a trailing `/`. */
  server: string
  namespace: string
  tls: ConnectionTls
  /** Authorization and Impersonate-* headers. */
  headers: Record<string, string | string[]>
  /** Per-request timeout in milliseconds; 0 = none. */
  timeoutMs: number
  /** Ask for gzip responses (`Accept-Encoding: gzip`); false with `--disable-compression`. */
  compression: boolean
  userAgent: string
  /** The user's exec credential plugin, run on the first request (absent when other credentials are given). */
  credentialPlugin?: ExecCredentialProvider
  /** Notes worth showing the user (credentials not sent over plain HTTP, plugin ignored, ...). */
  warnings: string[]
  /** What was selected (empty names when none) and the kubeconfig files read. */
  origin: { context: string; cluster: string; user: string; files: string[] }
}

/** Ours (kubectl falls back to localhost:8080): it names the kubeconfig a first-use server writes. */
export const NO_SERVER_MESSAGE =
  'no server found: set --server or a kubeconfig context (KUBECONFIG, --kubeconfig, ~/.kube/config); `client server start --merge-kubeconfig=$HOME/.kube/config` adds one, and a server started with --write-kubeconfig=$HOME/.kube/client.config (as npm start does) is reached with --kubeconfig ~/.kube/client.config'

export interface ResolveOptions {
  /** Product version for the User-Agent (commands pass oclif's `config.version`). */
  version?: string
}

type Cluster = Omit<KubeCluster, 'origin'>
type User = Omit<KubeUser, 'origin'>

/** Resolves the connection kubectl would make for these flags. Throws ClientConfigError. */
export function resolveConnection(flags: ClientFlags, env: NodeJS.ProcessEnv = process.env, options: ResolveOptions = {}): Connection {
  const config = loadKubeconfig({ kubeconfig: flags.kubeconfig, env })
  const warnings: string[] = []
  const problems: string[] = []

  const contextName = flags.context || config.currentContext || ''
  if (contextName && !config.contexts.has(contextName)) problems.push(`context was not found for specified context: ${contextName}`)
  const context = config.contexts.get(contextName)
  const clusterName = flags.cluster || context?.cluster || ''
  const userName = flags.user || context?.user || ''

  // An entry named by --cluster or --user must exist; client-go then checks an empty entry,
  // without the overrides (so `--cluster=nope --server=...` still fails).
  const baseCluster = config.clusters.get(clusterName)
  const cluster: Cluster = flags.cluster && !baseCluster ? {} : overrideCluster({ ...baseCluster }, flags)
  const baseUser = config.users.get(userName)
  const userRequiredMissing = Boolean(flags.user) && !baseUser
  const user: User = userRequiredMissing ? {} : overrideUser({ ...baseUser }, flags)

  problems.push(...validateUser(userName, user))
  // Without the context there is no cluster either: that it has no server says nothing more
  // (kubectl's localhost:8080 default hides this second problem too).
  const contextMissing = Boolean(contextName) && !context
  problems.push(...validateCluster(clusterName, cluster).filter((p) => !(contextMissing && p === NO_SERVER_MESSAGE)))
  if (problems.length === 1 && problems[0] === NO_SERVER_MESSAGE) throw new ClientConfigError(NO_SERVER_MESSAGE)
  if (problems.length > 0) throw ClientConfigError.invalid(problems)
  if (userRequiredMissing) throw new ClientConfigError(`auth info "${userName}" does not exist`)
  if (cluster.proxyUrl) throw new ClientConfigError(`proxy-url is not supported yet (cluster "${clusterName}" sets ${cluster.proxyUrl})`)

  const timeoutMs = parseRequestTimeout(flags.requestTimeout)
  // client-go: a server without a scheme is https when the cluster has TLS settings.
  const hasCa = Boolean(cluster.certificateAuthority || cluster.certificateAuthorityData)
  const server = normalizeServer(cluster.server!, hasCa || Boolean(cluster.insecureSkipTlsVerify))
  const secure = server.startsWith('https://')

  const tls: ConnectionTls = { insecureSkipVerify: false }
  const headers: Record<string, string | string[]> = {}
  let credentialPlugin: ExecCredentialProvider | undefined
  if (secure) {
    Object.assign(tls, serverTls(cluster))
    const unsupported = user.authProvider ? `the auth-provider plugin "${user.authProvider.name}"` : undefined
    if (unsupported) {
      if (!(flags.token || flags.username || flags.password || flags.clientCertificate)) {
        throw new ClientConfigError(
          `user "${userName}" authenticates with ${unsupported}, which is not supported yet: pass --token, --client-certificate and --client-key, or --username and --password instead`,
        )
      }
      warnings.push(`ignoring ${unsupported} of user "${userName}": using the credentials given on the command line`)
    }
    Object.assign(tls, clientTls(user, warnings))
    Object.assign(headers, authHeaders(user), impersonationHeaders({ user: user.as, uid: user.asUid, groups: user.asGroups, extra: user.asUserExtra }))
    // client-go runs the plugin only when no other credential is set (`--token` wins).
    if (user.exec && !headers.Authorization && !tls.cert) {
      const problems = execConfigProblems(userName, user.exec)
      if (problems.length > 0) throw new ClientConfigError(problems[0]!)
      credentialPlugin = new ExecCredentialProvider(
        user.exec,
        { server, tlsServerName: cluster.tlsServerName, insecureSkipTlsVerify: cluster.insecureSkipTlsVerify, certificateAuthorityData: tls.ca },
        { env },
      )
    }
  } else if (hasCredentials(user)) {
    warnings.push(`credentials and impersonation are not sent to ${server}: kubectl sends them over TLS only; use an https:// server`)
  }

  return {
    server,
    namespace: flags.namespace || context?.namespace || 'default',
    tls,
    headers,
    timeoutMs,
    compression: !(flags.disableCompression || cluster.disableCompression),
    userAgent: userAgent(options.version),
    ...(credentialPlugin ? { credentialPlugin } : {}),
    warnings,
    origin: { context: contextName, cluster: clusterName, user: userName, files: config.files },
  }
}

function overrideCluster(cluster: Cluster, flags: ClientFlags): Cluster {
  if (flags.server) cluster.server = flags.server
  // A --server given on the command line drops the kubeconfig's tls-server-name.
  if (flags.tlsServerName || flags.server) cluster.tlsServerName = flags.tlsServerName || undefined
  // --insecure-skip-tls-verify or --certificate-authority replace the CA setting as a whole.
  if (flags.insecureSkipTlsVerify || flags.certificateAuthority) {
    cluster.insecureSkipTlsVerify = Boolean(flags.insecureSkipTlsVerify)
    cluster.certificateAuthority = flags.certificateAuthority || undefined
    cluster.certificateAuthorityData = undefined
  }
  if (flags.disableCompression) cluster.disableCompression = true
  return cluster
}

function overrideUser(user: User, flags: ClientFlags): User {
  // A file given on the command line replaces the kubeconfig's inline data too (kubectl
  // reports "both specified" instead; the command line winning is what users mean).
  if (flags.clientCertificate) [user.clientCertificate, user.clientCertificateData] = [flags.clientCertificate, undefined]
  if (flags.clientKey) [user.clientKey, user.clientKeyData] = [flags.clientKey, undefined]
  if (flags.token) [user.token, user.tokenFile] = [flags.token, undefined]
  if (flags.username) user.username = flags.username
  if (flags.password) user.password = flags.password
  if (flags.as) user.as = flags.as
  if (flags.asUid) user.asUid = flags.asUid
  if (flags.asGroup?.length) user.asGroups = [...flags.asGroup]
  if (flags.asUserExtra?.length) user.asUserExtra = parseUserExtras(flags.asUserExtra)
  return user
}

/** clientcmd's validateAuthInfo, with its texts. */
function validateUser(name: string, user: User): string[] {
  const problems: string[] = []
  const methods: string[] = []
  if (user.token) methods.push('token')
  if (user.username || user.password) methods.push('basicAuth')
  if (user.clientCertificate || user.clientCertificateData) {
    if (user.clientCertificate && user.clientCertificateData) {
      problems.push(`client-cert-data and client-cert are both specified for ${name}. client-cert-data will override.`)
    }
    if (user.clientKey && user.clientKeyData) problems.push(`client-key-data and client-key are both specified for ${name}; client-key-data will override`)
    if (!user.clientKey && !user.clientKeyData) {
      problems.push(`client-key-data or client-key must be specified for ${name} to use the clientCert authentication method.`)
    }
    if (user.clientCertificate) {
      const err = unreadable(user.clientCertificate)
      if (err) problems.push(`unable to read client-cert ${user.clientCertificate} for ${name} due to ${err}`)
    }
    if (user.clientKey) {
      const err = unreadable(user.clientKey)
      if (err) problems.push(`unable to read client-key ${user.clientKey} for ${name} due to ${err}`)
    }
  }
  if (methods.length > 1) problems.push(`more than one authentication method found for ${name}; found [${methods.join(' ')}], only one is allowed`)
  if ((user.asUid || user.asGroups?.length || Object.keys(user.asUserExtra ?? {}).length) && !user.as) {
    problems.push(`requesting uid, groups or user-extra for ${name} without impersonating a user`)
  }
  return problems
}

/** clientcmd's validateClusterInfo, with its texts (and ours when no server is named at all). */
function validateCluster(name: string, cluster: Cluster): string[] {
  const problems: string[] = []
  if (!cluster.server) problems.push(name ? `no server found for cluster "${name}"` : NO_SERVER_MESSAGE)
  if (cluster.certificateAuthority && cluster.certificateAuthorityData) {
    problems.push(`certificate-authority-data and certificate-authority are both specified for ${name}. certificate-authority-data will override.`)
  }
  if (cluster.certificateAuthority) {
    const err = unreadable(cluster.certificateAuthority)
    if (err) problems.push(`unable to read certificate-authority ${cluster.certificateAuthority} for ${name} due to ${err}`)
  }
  return problems
}

function unreadable(file: string): string | undefined {
  try {
    fs.closeSync(fs.openSync(file, 'r'))
    return undefined
  } catch (err) {
    return goPathErrorText(err, file)
  }
}

/**
 * The base URL, as client-go's DefaultServerURL reads `server`: a URL, or host[:port] to
 * which `https://` (when TLS settings exist) or `http://` is prefixed. A path is kept as a
 * prefix for every request; query and fragment are dropped.
 */
export function normalizeServer(server: string, defaultTls: boolean): string {
  const withScheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]/.test(server) ? server : `${defaultTls ? 'https' : 'http'}://${server}`
  let url: URL
  try {
    url = new URL(withScheme)
  } catch {
    throw new ClientConfigError(`host must be a URL or a host:port pair: "${server}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ClientConfigError(`unsupported protocol scheme "${url.protocol.slice(0, -1)}"`)
  if (!url.host) throw new ClientConfigError(`host must be a URL or a host:port pair: "${server}"`)
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`
}

function readMaterial(file: string): Buffer {
  try {
    return readFileGo(file)
  } catch (err) {
    throw new ClientConfigError((err as Error).message, { cause: err })
  }
}

function serverTls(cluster: Cluster): Partial<ConnectionTls> {
  const out: Partial<ConnectionTls> = { insecureSkipVerify: Boolean(cluster.insecureSkipTlsVerify) }
  if (cluster.tlsServerName) out.serverName = cluster.tlsServerName
  const ca = cluster.certificateAuthorityData ?? (cluster.certificateAuthority ? readMaterial(cluster.certificateAuthority) : undefined)
  if (ca) {
    if (out.insecureSkipVerify) throw new ClientConfigError('specifying a root certificates file with the insecure flag is not allowed')
    if (!hasCertificate(ca)) throw new ClientConfigError('unable to load root certificates: unable to parse bytes as PEM block')
    out.ca = ca
  }
  return out
}

function hasCertificate(pem: Buffer): boolean {
  const block = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem.toString('latin1'))
  if (!block) return false
  try {
    new crypto.X509Certificate(block[0])
    return true
  } catch {
    return false
  }
}

/** The client certificate and key (both, or none: a key alone is ignored, as in client-go). */
function clientTls(user: User, warnings: string[]): Partial<ConnectionTls> {
  const cert = user.clientCertificateData ?? (user.clientCertificate ? readMaterial(user.clientCertificate) : undefined)
  const key = user.clientKeyData ?? (user.clientKey ? readMaterial(user.clientKey) : undefined)
  if (!cert) {
    if (key) warnings.push('a client key without a client certificate is ignored')
    return {}
  }
  if (!key) return {}
  // tls.X509KeyPair's checks, with its texts.
  let x509: crypto.X509Certificate
  try {
    x509 = new crypto.X509Certificate(cert)
  } catch {
    throw new ClientConfigError('tls: failed to find any PEM data in certificate input')
  }
  let privateKey: crypto.KeyObject
  try {
    privateKey = crypto.createPrivateKey(key)
  } catch {
    throw new ClientConfigError('tls: failed to find any PEM data in key input')
  }
  if (!x509.checkPrivateKey(privateKey)) throw new ClientConfigError('tls: private key does not match public key')
  return { cert, key }
}

function authHeaders(user: User): Record<string, string> {
  if (user.token) return { Authorization: `Bearer ${user.token}` }
  if (user.tokenFile) {
    const token = readMaterial(user.tokenFile).toString('utf8').trim()
    if (!token) throw new ClientConfigError(`read empty token from file "${user.tokenFile}"`)
    return { Authorization: `Bearer ${token}` }
  }
  if (user.username || user.password) {
    return { Authorization: `Basic ${Buffer.from(`${user.username ?? ''}:${user.password ?? ''}`).toString('base64')}` }
  }
  return {}
}

function hasCredentials(user: User): boolean {
  return Boolean(
    user.token || user.tokenFile || user.username || user.password || user.clientCertificate || user.clientCertificateData || user.as,
  )
}
