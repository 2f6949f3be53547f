/**
 * The plugin's configuration (the reference's PodSecurityConfiguration,
 * `pod-security.admission.config.k8s.io/v1`, also v1beta1 and v1alpha1, with its defaulting and
 * validation in admission/api): the default levels and versions for namespaces without labels
 * (privileged and latest when unset, and without any configuration), and the exempt usernames,
 * runtime classes and namespaces. An invalid configuration is refused with the reference's
 * field errors.
 */
import { aggregateMessage, duplicate, type FieldError, invalid, required } from '../../api/validation/field/errors.js'
import { isDNS1123Label, isDNS1123Subdomain } from '../../api/validation/strings.js'
import { type Policy, parseLevel, parseVersion } from './levels.js'

export const CONFIGURATION_GROUP = 'pod-security.admission.config.k8s.io'
const VERSIONS = ['v1', 'v1beta1', 'v1alpha1']
const KIND = 'PodSecurityConfiguration'

export interface Exemptions {
  readonly usernames: readonly string[]
  readonly runtimeClasses: readonly string[]
  readonly namespaces: readonly string[]
}

export interface PodSecurityConfiguration {
  readonly defaults: Policy
  readonly exemptions: Exemptions
}

const NO_EXEMPTIONS: Exemptions = { usernames: [], runtimeClasses: [], namespaces: [] }

const MODES = [
  ['enforce', 'enforce-version'],
  ['warn', 'warn-version'],
  ['audit', 'audit-version'],
] as const

/** The configuration without a file: every mode privileged:latest, nothing exempt. */
export function defaultConfiguration(): PodSecurityConfiguration {
  return readConfiguration({ apiVersion: `${CONFIGURATION_GROUP}/v1`, kind: KIND })
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : String(v))) : []
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

/** Each name in `list` valid (by `check`) and listed once (the reference's validateNamespaces ...). */
function validateNames(list: readonly string[], field: string, check: ((name: string) => readonly string[]) | undefined): FieldError[] {
  const errs: FieldError[] = []
  const seen = new Set<string>()
  list.forEach((name, i) => {
    const path = `exemptions.${field}[${i}]`
    if (check) {
      const problems = check(name)
      if (problems.length > 0) {
        errs.push(invalid(path, name, problems.join(', ')))
        return
      }
    } else if (name === '') {
      errs.push(required(path, ''))
      return
    }
    if (seen.has(name)) {
      errs.push(duplicate(path, name))
      return
    }
    seen.add(name)
  })
  return errs
}

/**
 * The configuration from its decoded document (`pluginConfig`); throws the reference's
 * aggregate of field errors when it is invalid.
 */
export function readConfiguration(document: unknown): PodSecurityConfiguration {
  const doc = record(document)
  const [group, version] = typeof doc.apiVersion === 'string' ? splitApiVersion(doc.apiVersion) : ['', '']
  if (group !== CONFIGURATION_GROUP || !VERSIONS.includes(version) || doc.kind !== KIND) {
    throw new Error(`expected ${KIND} (${CONFIGURATION_GROUP}/v1), got ${String(doc.apiVersion ?? '')}, Kind=${String(doc.kind ?? '')}`)
  }
  const defaults = record(doc.defaults)
  const errs: FieldError[] = []
  const modes = MODES.map(([levelKey, versionKey]) => {
    // SetDefaults_PodSecurityDefaults: an unset level is privileged, an unset version latest.
    const levelValue = typeof defaults[levelKey] === 'string' && defaults[levelKey] !== '' ? (defaults[levelKey] as string) : 'privileged'
    const versionValue = typeof defaults[versionKey] === 'string' && defaults[versionKey] !== '' ? (defaults[versionKey] as string) : 'latest'
    const level = parseLevel(levelValue)
    if (level.error) errs.push(invalid(`defaults.${levelKey}`, levelValue, level.error))
    const parsedVersion = parseVersion(versionValue)
    if (parsedVersion.error) errs.push(invalid(`defaults.${versionKey}`, versionValue, parsedVersion.error))
    return { level: level.value, version: parsedVersion.value }
  })
  const exemptions = record(doc.exemptions)
  const namespaces = strings(exemptions.namespaces)
  const runtimeClasses = strings(exemptions.runtimeClasses)
  const usernames = strings(exemptions.usernames)
  errs.push(...validateNames(namespaces, 'namespaces', isDNS1123Label))
  errs.push(...validateNames(runtimeClasses, 'runtimeClasses', isDNS1123Subdomain))
  errs.push(...validateNames(usernames, 'usernames', undefined))
  if (errs.length > 0) throw new Error(aggregateMessage(errs))
  const [enforce, warn, audit] = modes as [Policy['enforce'], Policy['warn'], Policy['audit']]
  return { defaults: { enforce, audit, warn }, exemptions: namespaces.length + runtimeClasses.length + usernames.length === 0 ? NO_EXEMPTIONS : { usernames, runtimeClasses, namespaces } }
}

function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/')
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)]
}
