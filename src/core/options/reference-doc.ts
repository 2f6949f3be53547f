/**
 * The option reference in Markdown, rendered from the catalogue, so the README's tables
 * can never disagree with what the server accepts.
 */
import { FEATURE_GATES } from './feature-gates.js'
import type { OptionSection, OptionSpec, OptionType } from './types.js'

const SECTION_TITLES: Record<OptionSection, string> = {
  serving: 'General and serving',
  admission: 'Admission',
  storage: 'Storage and store',
  audit: 'Audit',
  observability: 'Logging, metrics, features, versions',
  authentication: 'Authentication',
  authorization: 'Authorization',
  limits: 'Limits',
  cluster: 'Cluster (cluster start only)',
  client: 'General client options',
  patch: 'patch',
}

const TYPE_NAMES: Record<OptionType, string> = {
  int: 'int',
  uint: 'uint',
  float: 'float',
  bool: 'bool',
  string: 'string',
  ip: 'IP',
  strings: 'strings',
  stringArray: 'string (repeatable)',
  duration: 'duration',
  quantity: 'quantity',
  stringToString: 'key=value,...',
  mapStringString: 'key=value (repeatable)',
  portRange: 'N1-N2',
  featureGates: '[component:]Gate=bool,...',
  versions: '[component=]major.minor,...',
  keyValues: 'key[=value],...',
  namedCertKey: 'cert,key[:names]',
  moduleLevels: 'pattern=N,...',
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

function describe(spec: OptionSpec): string {
  const notes: string[] = []
  if (spec.aliases?.length) notes.push(`Also accepted as ${spec.aliases.map((a) => `\`--${a}\``).join(', ')}.`)
  if (spec.deprecated) notes.push(`Deprecated: ${spec.deprecated}`)
  if (spec.productOnly) notes.push('(Added by this product.)')
  return cell([spec.help, ...notes].join(' '))
}

export function renderOptionReference(options: readonly OptionSpec[]): string {
  const sections = new Map<OptionSection, OptionSpec[]>()
  for (const spec of options) {
    if (spec.hidden) continue
    const list = sections.get(spec.section) ?? []
    list.push(spec)
    sections.set(spec.section, list)
  }
  const out: string[] = []
  for (const [section, specs] of sections) {
    out.push(`#### ${SECTION_TITLES[section]}`, '', '| Option | Type | Default | Meaning |', '|---|---|---|---|')
    for (const spec of [...specs].sort((a, b) => a.name.localeCompare(b.name))) {
      const name = spec.short ? `\`-${spec.short}, --${spec.name}\`` : `\`--${spec.name}\``
      out.push(`| ${name} | ${cell(TYPE_NAMES[spec.type])} | ${spec.default === undefined ? '' : `\`${cell(spec.default)}\``} | ${describe(spec)} |`)
    }
    out.push('')
  }
  return out.join('\n')
}

export function renderFeatureGateReference(): string {
  const group = (stage: string, on: boolean) =>
    FEATURE_GATES.filter((g) => g.stage === stage && g.default === on)
      .map((g) => g.name)
      .sort()
      .join(', ')
  return [
    `- Alpha, off by default: ${group('alpha', false)}.`,
    `- Beta, off by default: ${group('beta', false)}.`,
    `- Beta, on by default: ${group('beta', true)}.`,
    '',
  ].join('\n')
}
