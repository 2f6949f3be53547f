/**
 * The PodTolerationRestriction admission plugin (the reference's
 * `plugin/pkg/admission/podtolerationrestriction`): a created pod takes in its namespace's
 * default tolerations (the `scheduler.alpha.kubernetes.io/defaultTolerations` annotation, a
 * JSON list, else the configuration's `default`); a pod not BestEffort tolerates
 * memory-pressure:NoSchedule; and a pod's tolerations must keep to the namespace's allow list
 * (`scheduler.alpha.kubernetes.io/tolerationsWhitelist`, else the configuration's `whitelist`).
 */
import { isPlainObject } from '../api/registry/object.js'
import { podQOSClass } from '../api/kinds/pod-qos.js'
import { Path } from '../api/validation/field/path.js'
import { validateTolerations } from '../api/validation/core/scheduling.js'
import { type AdmissionAttributes, CREATE, UPDATE } from './attributes.js'
import { type MutationInterface, type ValidationInterface, handlesOnly } from './interfaces.js'
import { namespaceOf } from './namespace-of.js'
import { plainError } from './plain-error.js'
import { isPodProper, specOf } from './pod-of.js'
import type { PluginInitialization } from './plugins.js'
import { mergeTolerations, verifyAgainstWhitelist } from './toleration-merge.js'
import { type Toleration, tolerationsOf } from './tolerations.js'

export const POD_TOLERATION_RESTRICTION = 'PodTolerationRestriction'

/** The namespace annotations of the default tolerations and of the allow list. */
export const NS_DEFAULT_TOLERATIONS = 'scheduler.alpha.kubernetes.io/defaultTolerations'
export const NS_WL_TOLERATIONS = 'scheduler.alpha.kubernetes.io/tolerationsWhitelist'

const TAINT_NODE_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure'

/** The configuration (podtolerationrestriction.admission.k8s.io Configuration). */
export interface PodTolerationRestrictionConfiguration {
  default: Toleration[]
  whitelist: Toleration[]
}

export class PodTolerationRestriction implements MutationInterface, ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)
  readonly pluginConfig: PodTolerationRestrictionConfiguration

  constructor(
    private readonly init: PluginInitialization,
    pluginConfig: unknown,
  ) {
    this.pluginConfig = loadConfiguration(pluginConfig)
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    if (shouldIgnore(attributes)) return
    const pod = attributes.object!
    const spec = specOf(pod)
    let extra: Toleration[] = []
    if (attributes.operation === CREATE) {
      // Without its own defaults, the namespace takes the cluster's.
      extra = (await this.namespaceTolerations(attributes, NS_DEFAULT_TOLERATIONS)) ?? this.pluginConfig.default
    }
    if (qosClass(pod.status, spec) !== 'BestEffort') extra = [...extra, { key: TAINT_NODE_MEMORY_PRESSURE, operator: 'Exists', effect: 'NoSchedule' }]
    if (extra.length > 0) spec.tolerations = mergeTolerations(tolerationsOf(spec), extra)
    await this.validate(attributes)
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (shouldIgnore(attributes)) return
    const tolerations = tolerationsOf(specOf(attributes.object!))
    if (tolerations.length === 0) return
    let whitelist = await this.namespaceTolerations(attributes, NS_WL_TOLERATIONS)
    let scope = 'namespace'
    if (whitelist === undefined) {
      whitelist = this.pluginConfig.whitelist
      scope = 'cluster'
    }
    if (whitelist.length > 0 && !verifyAgainstWhitelist(tolerations, whitelist)) {
      throw plainError(`pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`)
    }
  }

  /** The annotation's tolerations; undefined without the annotation, none when it is empty. */
  private async namespaceTolerations(attributes: AdmissionAttributes, key: string): Promise<Toleration[] | undefined> {
    const annotations = (await namespaceOf(this.init, attributes)).metadata.annotations ?? {}
    if (!(key in annotations)) return undefined
    const value = annotations[key]!
    if (value === '') return []
    let parsed: unknown
    try {
      parsed = JSON.parse(value)
    } catch (err) {
      throw plainError((err as Error).message)
    }
    if (parsed === null) return []
    if (!Array.isArray(parsed) || !parsed.every(isPlainObject)) throw plainError('json: cannot unmarshal into Go value of type []v1.Toleration')
    return parsed
  }
}

/** The reference's GetPodQOS: the class the status records, else the one computed. */
function qosClass(status: unknown, spec: Record<string, unknown>): string {
  return isPlainObject(status) && typeof status.qosClass === 'string' && status.qosClass !== '' ? status.qosClass : podQOSClass(spec)
}

function shouldIgnore(attributes: AdmissionAttributes): boolean {
  if (!isPodProper(attributes)) return true
  const pod = attributes.object
  return !pod || (pod.kind !== undefined && pod.kind !== 'Pod')
}

const API_VERSIONS = ['podtolerationrestriction.admission.k8s.io/v1alpha1', 'podtolerationrestriction.admission.k8s.io/v1']

/**
 * The plugin's configuration: none is the empty one; otherwise a Configuration of
 * podtolerationrestriction.admission.k8s.io/v1alpha1 or v1 whose tolerations validate.
 */
export function loadConfiguration(pluginConfig: unknown): PodTolerationRestrictionConfiguration {
  if (pluginConfig === undefined || pluginConfig === null) return { default: [], whitelist: [] }
  if (!isPlainObject(pluginConfig)) throw new Error(`couldn't get version/kind; json parse error: cannot unmarshal ${typeof pluginConfig} into Go value of type struct`)
  const { apiVersion, kind } = pluginConfig
  if (typeof kind !== 'string' || kind === '') throw new Error(`Object 'Kind' is missing in '${JSON.stringify(pluginConfig)}'`)
  if (typeof apiVersion !== 'string' || !API_VERSIONS.includes(apiVersion) || kind !== 'Configuration') {
    throw new Error(`no kind "${kind}" is registered for version "${String(apiVersion ?? '')}" in scheme "pkg/runtime/scheme.go:100"`)
  }
  const config = { default: tolerationList(pluginConfig.default), whitelist: tolerationList(pluginConfig.whitelist) }
  const root = Path.of('podtolerationrestriction')
  const errs = [...validateTolerations(config.default, root.child('default')), ...validateTolerations(config.whitelist, root.child('whitelist'))]
  if (errs.length > 0) throw new Error(`invalid config: [${errs.map(String).join(' ')}]`)
  return config
}

function tolerationList(value: unknown): Toleration[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : []
}
