/**
 * kubeconfig users with an `exec` credential plugin (client-go's
 * `plugin/pkg/client/auth/exec`): the plugin is run with the configured arguments and
 * environment plus `KUBERNETES_EXEC_INFO`, and its `ExecCredential`
 * (`client.authentication.k8s.io/v1` or `v1beta1`) on standard output gives a bearer token or
 * a client certificate and key. A credential with an `expirationTimestamp` is reused until
 * then. Failures read as kubectl's (`getting credentials: exec: executable x failed with exit
 * code 1`, the install hint of a missing plugin, ...). The plugin's standard error is the
 * user's, as with kubectl.
 */
import { loadYaml } from '../util/yaml.js'

export const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const

export interface ExecConfig {
  /** As written, or resolved against the kubeconfig's directory when it is a relative path with a `/`. */
  command: string
  args?: string[]
  env?: { name: string; value: string }[]
  apiVersion?: string
  installHint?: string
  provideClusterInfo?: boolean
  interactiveMode?: string
}

/** What `provideClusterInfo` passes to the plugin (`spec.cluster`). */
export interface ExecClusterInfo {
  server: string
  tlsServerName?: string
  insecureSkipTlsVerify?: boolean
  certificateAuthorityData?: Buffer
}

export interface ExecCredential {
  token?: string
  clientCertificateData?: string
  clientKeyData?: string
  /** Milliseconds since the epoch; absent: valid for the whole run. */
  expiresAt?: number
}

/** A credential that could not be obtained; the message is what follows kubectl's `getting credentials: `. */
export class ExecCredentialError extends Error {}

const INSTALL_HELP =
  'It looks like you are trying to use a client-go credential plugin that is not installed.\n\nTo learn more about this feature, consult the documentation available at:\n      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins'

/** clientcmd's checks of an exec entry, with its texts; empty when usable. */
export function execConfigProblems(user: string, exec: ExecConfig): string[] {
  if (!exec.apiVersion || !(EXEC_API_VERSIONS as readonly string[]).includes(exec.apiVersion)) {
    return [`exec plugin: invalid apiVersion ${JSON.stringify(exec.apiVersion ?? '')}`]
  }
  const mode = exec.interactiveMode
  if (exec.apiVersion.endsWith('/v1') && !mode) return [`interactiveMode must be specified for ${user} to use exec authentication plugin`]
  if (mode && !['Never', 'IfAvailable', 'Always'].includes(mode)) {
    return [`invalid interactiveMode for ${user}: ${JSON.stringify(mode)}`]
  }
  return []
}

export class ExecCredentialProvider {
  private cached?: ExecCredential
  private pending?: Promise<ExecCredential>

  constructor(
    private readonly exec: ExecConfig,
    private readonly cluster: ExecClusterInfo,
    private readonly options: { env?: NodeJS.ProcessEnv; stdinIsTerminal?: boolean; now?: () => number } = {},
  ) {}

  /** The current credential, running the plugin when there is none or it has expired. */
  get(): Promise<ExecCredential> {
    const now = (this.options.now ?? Date.now)()
    if (this.cached && (this.cached.expiresAt === undefined || this.cached.expiresAt > now)) return Promise.resolve(this.cached)
    this.pending ??= this.run().then(
      (credential) => {
        this.cached = credential
        this.pending = undefined
        return credential
      },
      (err) => {
        this.pending = undefined
        throw err
      },
    )
    return this.pending
  }

  /** Whether a credential obtained earlier is past its expiry. */
  expired(): boolean {
    const at = this.cached?.expiresAt
    return at !== undefined && at <= (this.options.now ?? Date.now)()
  }

  private interactive(): boolean {
    const mode = this.exec.interactiveMode ?? 'IfAvailable'
    const terminal = this.options.stdinIsTerminal ?? Boolean(process.stdin.isTTY)
    if (mode === 'Always' && !terminal) throw new ExecCredentialError('exec plugin cannot support interactive mode: standard input is not a terminal')
    return mode !== 'Never' && terminal
  }

  private execInfo(interactive: boolean): string {
    const spec: Record<string, unknown> = {}
    if (this.exec.provideClusterInfo) {
      const c = this.cluster
      spec.cluster = {
        server: c.server,
        ...(c.tlsServerName ? { 'tls-server-name': c.tlsServerName } : {}),
        ...(c.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
        ...(c.certificateAuthorityData ? { 'certificate-authority-data': c.certificateAuthorityData.toString('base64') } : {}),
      }
    }
    spec.interactive = interactive
    return JSON.stringify({ kind: 'ExecCredential', apiVersion: this.exec.apiVersion, spec })
  }

  private async run(): Promise<ExecCredential> {
    const interactive = this.interactive()
    const env: NodeJS.ProcessEnv = { ...(this.options.env ?? process.env) }
    for (const { name, value } of this.exec.env ?? []) env[name] = value
    env.KUBERNETES_EXEC_INFO = this.execInfo(interactive)
    // Loaded here, not with the command: most runs (`health check` among them) have no plugin,
    // and the module costs a few ms of a short command's start.
    const { spawn } = await import('node:child_process')
    const stdout = await new Promise<string>((resolve, reject) => {
      const command = this.exec.command
      let child
      try {
        child = spawn(command, this.exec.args ?? [], { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'inherit'] })
      } catch (err) {
        reject(startError(command, err, this.exec.installHint))
        return
      }
      let out = ''
      child.stdout!.setEncoding('utf8')
      child.stdout!.on('data', (d: string) => (out += d))
      child.once('error', (err) => reject(startError(command, err, this.exec.installHint)))
      child.once('close', (code, signal) => {
        if (code === 0) resolve(out)
        else reject(new ExecCredentialError(`exec: executable ${command} failed with exit code ${code ?? (signal ? -1 : 1)}`))
      })
    })
    return this.decode(stdout)
  }

  private decode(stdout: string): ExecCredential {
    let doc: unknown
    try {
      doc = loadYaml(stdout)
    } catch (err) {
      throw new ExecCredentialError(`decoding stdout: ${(err as Error).message.split('\n')[0]}`)
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
      const kind = Array.isArray(doc) ? 'array' : doc === null || doc === undefined ? 'null' : typeof doc === 'number' ? 'number' : typeof doc === 'boolean' ? 'bool' : 'string'
      throw new ExecCredentialError(
        `decoding stdout: couldn't get version/kind; json parse error: json: cannot unmarshal ${kind} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
      )
    }
    const credential = doc as { apiVersion?: unknown; kind?: unknown; status?: unknown }
    if (credential.apiVersion !== this.exec.apiVersion) {
      throw new ExecCredentialError(`exec plugin is configured to use API version ${this.exec.apiVersion}, plugin returned version ${String(credential.apiVersion ?? '')}`)
    }
    const status = credential.status
    if (status === undefined || status === null || typeof status !== 'object') throw new ExecCredentialError("exec plugin didn't return a status field")
    const s = status as { token?: unknown; clientCertificateData?: unknown; clientKeyData?: unknown; expirationTimestamp?: unknown }
    const token = typeof s.token === 'string' && s.token !== '' ? s.token : undefined
    const cert = typeof s.clientCertificateData === 'string' && s.clientCertificateData !== '' ? s.clientCertificateData : undefined
    const key = typeof s.clientKeyData === 'string' && s.clientKeyData !== '' ? s.clientKeyData : undefined
    if (!token && !cert && !key) throw new ExecCredentialError("exec plugin didn't return a token or cert/key pair")
    if (Boolean(cert) !== Boolean(key)) throw new ExecCredentialError('exec plugin returned only certificate or key, not both')
    let expiresAt: number | undefined
    if (typeof s.expirationTimestamp === 'string' && s.expirationTimestamp !== '') {
      expiresAt = Date.parse(s.expirationTimestamp)
      if (Number.isNaN(expiresAt)) throw new ExecCredentialError(`decoding stdout: parsing time ${JSON.stringify(s.expirationTimestamp)} as "2006-01-02T15:04:05Z07:00": cannot parse`)
    }
    return { ...(token ? { token } : {}), ...(cert ? { clientCertificateData: cert, clientKeyData: key } : {}), ...(expiresAt !== undefined ? { expiresAt } : {}) }
  }
}

/** Go's os/exec texts for a plugin that could not be started. */
function startError(command: string, err: unknown, installHint?: string): ExecCredentialError {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT') {
    return new ExecCredentialError(`exec: executable ${command} not found\n\n${INSTALL_HELP}${installHint ? `\n\n${installHint}` : ''}`)
  }
  if (code === 'EACCES') return new ExecCredentialError(`exec: fork/exec ${command}: permission denied`)
  return new ExecCredentialError(`exec: ${(err as Error).message}`)
}
