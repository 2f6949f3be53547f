/**
 * `client validate` from its parsed flags: reads the manifests (src/core/validate/manifests.ts),
 * checks them through the offline dry-run server (validate-manifests.ts) and prints the report
 * (text, JSON or SARIF); answers the exit status.
 */
import { type Manifest, readKustomization, readManifests } from '../../core/validate/manifests.js'
import { reportJson } from '../../core/validate/json.js'
import { exitCode } from '../../core/validate/report.js'
import { reportSarif } from '../../core/validate/sarif.js'
import { reportText } from '../../core/validate/text.js'
import { DryRunServer } from './dry-run-server.js'
import { validateManifests } from './validate-manifests.js'

export interface ValidateFlags {
  filename: readonly string[]
  /** -R: the subdirectories of -f (and --crd, --policy) directories too, as kubectl's -R. */
  recursive?: boolean
  kustomize?: string
  crd: readonly string[]
  policy: readonly string[]
  namespace: string
  podSecurity?: 'privileged' | 'baseline' | 'restricted'
  emulatedVersion?: string
  output: 'text' | 'json' | 'sarif'
  warningsAsErrors: boolean
}

export interface ValidateIO {
  cwd: string
  readStdin(): Promise<string>
  out(text: string): void
  err(text: string): void
  tool: { name: string; version: string }
}

/** A command line that cannot run: kubectl's `error: ...`, exit status 2... (the caller prints it). */
export class ValidateUsageError extends Error {}

export async function runValidate(flags: ValidateFlags, io: ValidateIO): Promise<number> {
  if (flags.filename.length === 0 && flags.kustomize === undefined) throw new ValidateUsageError('must specify one of -f and -k')
  const emulatedMinor = await emulatedMinorOf(flags.emulatedVersion)
  const reader = { cwd: io.cwd, readStdin: io.readStdin, fetchUrl: () => Promise.reject(new Error('URLs are not read by validate')) }
  let manifests: Manifest[]
  try {
    // The extra CRD and policy files come first: what the input's objects are checked against.
    const recursive = flags.recursive === true
    manifests = [...(await readManifests([...flags.crd, ...flags.policy], recursive, reader)), ...(await readManifests(flags.filename, recursive, reader))]
    if (flags.kustomize !== undefined) manifests.push(...readKustomization(flags.kustomize, io.cwd))
  } catch (err) {
    throw new ValidateUsageError((err as Error).message)
  }
  const server = await DryRunServer.open({
    ...(emulatedMinor !== undefined ? { emulatedMinor } : {}),
    ...(managedFieldsUnread(manifests) ? { managedFields: false } : {}),
    ...(flags.podSecurity ? { admissionConfiguration: podSecurityDefaults(flags.podSecurity) } : {}),
  })
  let report
  try {
    report = await validateManifests(server, manifests, { namespace: flags.namespace })
  } finally {
    await server.close()
  }
  if (flags.output === 'json') io.out(reportJson(report, flags.warningsAsErrors))
  else if (flags.output === 'sarif') io.out(reportSarif(report, io.tool))
  else io.out(reportText(report))
  return exitCode(report, flags.warningsAsErrors)
}

/**
 * Whether no answer of the run can depend on the managedFields the server records: the
 * report reads only an answer's status, warnings and error, and what could read the fields
 * before that (an admission policy's CEL, a mutating policy's apply) or fail on those the
 * input brings (their validation) is absent. Their recording is then skipped: about a seventh
 * of a create's cost.
 */
function managedFieldsUnread(manifests: readonly Manifest[]): boolean {
  return manifests.every((m) => {
    const o = m.object
    if (!o) return true
    if (typeof o.kind === 'string' && /AdmissionPolicy/.test(o.kind)) return false
    const meta = o.metadata
    return !(meta && typeof meta === 'object' && 'managedFields' in meta)
  })
}

/**
 * `--emulated-version`: checked by the server's own rules for the flag (its syntax, the floor
 * and the binary's version), loaded only when it is given; the minor it names.
 */
async function emulatedMinorOf(version: string | undefined): Promise<number | undefined> {
  if (version === undefined) return undefined
  const { validateServerCommandLine } = await import('../../core/flags/validate.js')
  const report = validateServerCommandLine([`--emulated-version=${version}`])
  if (!report.valid) throw new ValidateUsageError(report.serverMessage ?? `invalid --emulated-version ${JSON.stringify(version)}`)
  const minor = report.context?.emulatedMinor
  return minor === undefined || minor < 0 ? undefined : minor
}

/**
 * The PodSecurity plugin's configuration with `level` as the default of namespaces without
 * labels, for enforcement and for warnings: as a server started with this
 * --admission-control-config-file would have it.
 */
export function podSecurityDefaults(level: string): string {
  return JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AdmissionConfiguration',
    plugins: [
      {
        name: 'PodSecurity',
        configuration: {
          apiVersion: 'pod-security.admission.config.k8s.io/v1',
          kind: 'PodSecurityConfiguration',
          defaults: { enforce: level, 'enforce-version': 'latest', audit: 'privileged', 'audit-version': 'latest', warn: level, 'warn-version': 'latest' },
          exemptions: { usernames: [], runtimeClasses: [], namespaces: [] },
        },
      },
    ],
  })
}

/** Standard input, read once. */
export function readStdinOnce(): () => Promise<string> {
  let text: Promise<string> | undefined
  return () =>
    (text ??= new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = []
      process.stdin.on('data', (c: Buffer) => chunks.push(c))
      process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      process.stdin.on('error', reject)
    }))
}

