/**
 * The catalogue as oclif flag definitions, so that `--help`, the manifest and the README's
 * command reference list every server option. Parsing is not oclif's: the server reads its
 * command line with the reference's own syntax (core/flags/command-line.ts).
 */
import type { OptionSpec } from './types.js'

interface FlagDescription {
  type: 'option'
  description: string
  helpGroup: string
  helpValue: string
  char?: string
  default?: string
  multiple?: boolean
  deprecated?: { message: string }
}

const GROUPS: Record<string, string> = {
  serving: 'SERVING',
  admission: 'ADMISSION',
  storage: 'STORAGE',
  audit: 'AUDIT',
  observability: 'LOGGING, METRICS, FEATURES',
  authentication: 'AUTHENTICATION',
  authorization: 'AUTHORIZATION',
  limits: 'LIMITS',
  cluster: 'CLUSTER',
}

/**
 * `server start --help`'s order, as kube-apiserver's `--help` prints its named flag sets
 * (generic and secure serving, etcd, auditing, authentication, authorization, admission,
 * features/metrics/logs/traces, misc), after a first group of the options a first start uses.
 */
const SECTION_ORDER = ['serving', 'storage', 'audit', 'authentication', 'authorization', 'admission', 'observability', 'limits']

/** The options most first starts give or ask about, in the order of a typical command line. */
export const COMMON_SERVER_OPTIONS = [
  'bind-address',
  'secure-port',
  'cert-dir',
  'data-dir',
  'write-kubeconfig',
  'merge-kubeconfig',
  'store-servers',
  'service-cluster-ip-range',
  'authorization-mode',
  'enable-admission-plugins',
  'feature-gates',
  'v',
]

/** The options in help order: `common` first (group COMMON), then section by section, each in catalogue order. */
export function inHelpOrder(options: readonly OptionSpec[], common: readonly string[]): OptionSpec[] {
  const rank = (spec: OptionSpec) => {
    const at = common.indexOf(spec.name)
    if (at !== -1) return at
    const section = SECTION_ORDER.indexOf(spec.section)
    return common.length + (section === -1 ? SECTION_ORDER.length : section)
  }
  // Array.prototype.sort is stable: the catalogue's order is kept within a section.
  return [...options].sort((a, b) => rank(a) - rank(b))
}

export function flagDescriptions(options: readonly OptionSpec[], common: readonly string[] = []): Record<string, FlagDescription> {
  const out: Record<string, FlagDescription> = {}
  for (const spec of options) {
    if (spec.hidden) continue
    const aliases = spec.aliases?.length ? ` Also accepted as ${spec.aliases.map((a) => `--${a}`).join(', ')}.` : ''
    out[spec.name] = {
      type: 'option',
      description: spec.help + aliases,
      helpGroup: common.includes(spec.name) ? 'COMMON' : (GROUPS[spec.section] ?? spec.section.toUpperCase()),
      helpValue: spec.valueName ?? spec.type,
      ...(spec.short ? { char: spec.short } : {}),
      ...(spec.default !== undefined ? { default: spec.default } : {}),
      ...(spec.repeatable ? { multiple: true } : {}),
      ...(spec.deprecated ? { deprecated: { message: spec.deprecated } } : {}),
    }
  }
  return out
}
