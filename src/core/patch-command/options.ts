/**
 * The `patch` command line, parsed the way kubectl's flag library (pflag, under cobra) does,
 * with the shared pflag-compatible parser and the option catalogue (PATCH_OPTIONS for the
 * operation, CLIENT_OPTIONS for the general client options), then checked in kubectl's
 * order (Complete, then Validate of `kubectl patch`).
 */
import { OptionIndex, parseCommandLine } from '../flags/command-line.js'
import { CLIENT_OPTIONS } from '../options/catalogue/client.js'
import { PATCH_OPTIONS } from '../options/catalogue/patch.js'
import type { OptionValue } from '../options/types.js'
import { goQuote, klogWarning } from './go-text.js'

export type PatchTypeName = 'strategic' | 'merge' | 'json'
type DryRun = 'none' | 'client' | 'server'

export interface PatchCommandOptions {
  patch: string
  patchFile: string
  /** In effect; `--type` compared case-insensitively. */
  type: PatchTypeName
  filenames: string[]
  recursive: boolean
  kustomize: string
  local: boolean
  dryRun: DryRun
  output: string
  template: string | undefined
  allowMissingTemplateKeys: boolean
  showManagedFields: boolean
  subresource: string
  fieldManager: string
  /** `-n`, when given (kubectl enforces it against the objects' namespaces). */
  namespace: string | undefined
  /** TYPE NAME arguments. */
  args: string[]
  /** The client version reported for `--match-server-version`, from `--version=vX.Y.Z` (else the product's). */
  reportedVersion?: string
  /** Every parsed option by name, for the server mode to come. */
  all: Map<string, OptionValue>
}

/** A usage problem: printed as `error: <message>` (plus `hint` lines), exit 1. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message)
  }
}

type ParseOutcome =
  | { kind: 'help' }
  | { kind: 'options'; options: PatchCommandOptions; warnings: string[] }

let index: OptionIndex | undefined

/**
 * Parses and validates `argv` (the arguments after `patch`). `program` names the binary in
 * the hint after a flag error (`See '<program> patch --help' for usage.`).
 */
export function parsePatchCommandLine(argv: readonly string[], program: string): ParseOutcome {
  index ??= new OptionIndex([...PATCH_OPTIONS, ...CLIENT_OPTIONS])
  // pflag's NoOptDefVal: a bare `--dry-run` means "unchanged" and never takes the next argument.
  const args: string[] = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') {
      args.push(...argv.slice(i))
      break
    }
    args.push(argv[i] === '--dry-run' ? '--dry-run=unchanged' : argv[i])
  }
  const parsed = parseCommandLine(args, index, `${program} patch`)
  const hint = `See '${program} patch --help' for usage.`
  // pflag stops at the first problem; the shared parser collects them in command-line order.
  const first = parsed.findings.find((f) => f.severity === 'error' && f.rule !== 'ARGS')
  if (first) throw new UsageError(first.message, hint)
  if (parsed.asksForHelp) return { kind: 'help' }

  const value = (name: string) => parsed.options.get(name)?.value
  const str = (name: string, fallback = '') => {
    const v = value(name)
    return typeof v === 'string' ? v : fallback
  }
  const bool = (name: string, fallback = false) => {
    const v = value(name)
    return typeof v === 'boolean' ? v : fallback
  }
  const warnings: string[] = []

  // Complete: the dry-run strategy (cmdutil.GetDryRunStrategy).
  const dryRunText = str('dry-run', 'none')
  let dryRun: DryRun
  const asBool = GO_BOOL[dryRunText]
  if (asBool !== undefined) {
    dryRun = asBool ? 'client' : 'none'
    warnings.push(
      klogWarning(`--dry-run=${dryRunText} is deprecated (boolean value) and can be replaced with --dry-run=${asBool ? 'client' : 'none'}.`),
    )
  } else if (dryRunText === 'unchanged') {
    dryRun = 'client'
    warnings.push(klogWarning('--dry-run is deprecated and can be replaced with --dry-run=client.'))
  } else if (dryRunText === 'client' || dryRunText === 'server' || dryRunText === 'none') {
    dryRun = dryRunText
  } else {
    throw new UsageError(`Invalid dry-run value (${dryRunText}). Must be "none", "server", or "client".`)
  }

  // Validate, in kubectl's order.
  const patch = str('patch')
  const patchFile = str('patch-file')
  const local = bool('local')
  const positional = parsed.positional.filter((a) => a !== '')
  if (patch !== '' && patchFile !== '') throw new UsageError('cannot specify --patch and --patch-file together')
  if (patch === '' && patchFile === '') throw new UsageError('must specify --patch or --patch-file containing the contents of the patch', hint)
  if (local && parsed.positional.length > 0) throw new UsageError('cannot specify --local and server resources')
  if (local && dryRun === 'server') throw new UsageError('cannot specify --local and --dry-run=server - did you mean --dry-run=client?')
  const typeText = str('type')
  let type: PatchTypeName = 'strategic'
  if (typeText !== '') {
    const lower = typeText.toLowerCase()
    if (lower !== 'json' && lower !== 'merge' && lower !== 'strategic') {
      throw new UsageError(`--type must be one of [json merge strategic], not ${goQuote(typeText)}`)
    }
    type = lower
  }

  const filenames = value('filename')
  const namespace = parsed.options.get('namespace')
  return {
    kind: 'options',
    warnings,
    options: {
      patch,
      patchFile,
      type,
      filenames: Array.isArray(filenames) ? (filenames as string[]) : [],
      recursive: bool('recursive'),
      kustomize: str('kustomize'),
      local,
      dryRun,
      output: str('output'),
      template: parsed.options.has('template') ? str('template') : undefined,
      allowMissingTemplateKeys: bool('allow-missing-template-keys', true),
      showManagedFields: bool('show-managed-fields'),
      subresource: str('subresource'),
      fieldManager: str('field-manager', 'client-patch'),
      namespace: namespace && typeof namespace.value === 'string' && namespace.value !== '' ? namespace.value : undefined,
      args: positional,
      all: new Map([...parsed.options].map(([k, v]) => [k, v.value])),
    },
  }
}

const GO_BOOL: Record<string, boolean> = {
  '1': true, t: true, T: true, TRUE: true, true: true, True: true,
  '0': false, f: false, F: false, FALSE: false, false: false, False: false,
}
