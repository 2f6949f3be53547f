/**
 * The client's reported version (kubectl's `--version` flag, component-base verflag) and the
 * `--match-server-version` check (client-go discovery.MatchesServerVersion).
 *
 * Decision: the client reports the kubectl-compatible version of the product, the reference
 * version the bundled server also reports: `v<major>.<minor>.0` of BINARY_VERSION (v1.35.0).
 * `--version=vX.Y.Z` replaces it for the run (for the check and `--version=raw` alike). The
 * check compares major.minor only (kubectl compares gitVersion, gitCommit and tree state,
 * which never match between two different products).
 */
import { type BuildInfo, buildInfo } from '../build-info.js'
import { BINARY_VERSION } from '../flags/context.js'
import { productVersion } from './user-agent.js'

export interface ClientVersionInfo extends BuildInfo {
  major: string
  minor: string
  gitVersion: string
}

/** The version this client reports; `override` is a `vX.Y.Z` from `--version=vX.Y.Z`. */
export function clientVersionInfo(override?: string): ClientVersionInfo {
  let major = String(BINARY_VERSION.major)
  let minor = String(BINARY_VERSION.minor)
  let gitVersion = `v${major}.${minor}.0`
  if (override !== undefined) {
    const m = SEMVER.exec(override)
    if (m) {
      major = m[1]
      minor = m[2]
      gitVersion = override
    }
  }
  return {
    major,
    minor,
    gitVersion,
    ...buildInfo(productVersion()),
  }
}

const SEMVER = /^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/

/** What `--version[=value]` asks for. */
export type VersionRequest = { kind: 'print' } | { kind: 'raw' } | { kind: 'none' } | { kind: 'set'; version: string }

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True'])
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False'])

/** verflag's Set: a Go bool, `raw`, or `vX.Y.Z` (sets the reported version). Throws with pflag's text. */
export function parseVersionFlag(value: string | undefined): VersionRequest {
  if (value === undefined || GO_TRUE.has(value)) return { kind: 'print' }
  if (GO_FALSE.has(value)) return { kind: 'none' }
  if (value === 'raw') return { kind: 'raw' }
  if (value.startsWith('v')) {
    if (!SEMVER.test(value)) throw new Error(`invalid argument ${JSON.stringify(value)} for "--version" flag: version ${JSON.stringify(value)} is not a valid semantic version (vMAJOR.MINOR.PATCH)`)
    return { kind: 'set', version: value }
  }
  throw new Error(`invalid argument ${JSON.stringify(value)} for "--version" flag: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`)
}

/** `Client Version: vX.Y.Z` (kubectl version's first line), or Go's %#v of version.Info for `raw`. */
export function formatVersion(info: ClientVersionInfo, raw: boolean): string {
  if (!raw) return `Client Version: ${info.gitVersion}\n`
  const q = JSON.stringify
  return `version.Info{Major:${q(info.major)}, Minor:${q(info.minor)}, GitVersion:${q(info.gitVersion)}, GitCommit:${q(info.gitCommit)}, GitTreeState:${q(info.gitTreeState)}, BuildDate:${q(info.buildDate)}, GoVersion:${q(info.goVersion)}, Compiler:${q(info.compiler)}, Platform:${q(info.platform)}}\n`
}

/**
 * The `--match-server-version` verdict for a `/version` body: undefined when the major.minor
 * match, else the error text (without `error: `).
 */
export function serverVersionMismatch(client: ClientVersionInfo, status: number, body: string): string | undefined {
  let server: Record<string, unknown> | undefined
  try {
    const v = JSON.parse(body) as unknown
    if (status === 200 && v !== null && typeof v === 'object' && !Array.isArray(v)) server = v as Record<string, unknown>
  } catch {
    // handled below
  }
  if (!server) return `couldn't read version from server: the server responded with status ${status}`
  const digits = (v: unknown) => (typeof v === 'string' ? v.replace(/\+$/, '') : '')
  const gitVersion = typeof server.gitVersion === 'string' ? server.gitVersion : `v${digits(server.major)}.${digits(server.minor)}`
  if (digits(server.major) === client.major && digits(server.minor) === client.minor) return undefined
  return `server version (${gitVersion}) differs from client version (${client.gitVersion})`
}
