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

export function flagDescriptions(options: readonly OptionSpec[]): Record<string, FlagDescription> {
  const out: Record<string, FlagDescription> = {}
  for (const spec of options) {
    if (spec.hidden) continue
    const aliases = spec.aliases?.length ? ` Also accepted as ${spec.aliases.map((a) => `--${a}`).join(', ')}.` : ''
    out[spec.name] = {
      type: 'option',
      description: spec.help + aliases,
      helpGroup: GROUPS[spec.section] ?? spec.section.toUpperCase(),
      helpValue: spec.valueName ?? spec.type,
      ...(spec.short ? { char: spec.short } : {}),
      ...(spec.default !== undefined ? { default: spec.default } : {}),
      ...(spec.repeatable ? { multiple: true } : {}),
      ...(spec.deprecated ? { deprecated: { message: spec.deprecated } } : {}),
    }
  }
  return out
}
