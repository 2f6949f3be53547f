/**
 * The DefaultIngressClass admission plugin (the reference's
 * `plugin/pkg/admission/network/defaultingressclass`): a new Ingress that names no class
 * (no spec.ingressClassName, not even "", and no `kubernetes.io/ingress.class` annotation)
 * gets the IngressClass annotated `ingressclass.kubernetes.io/is-default-class: "true"`; of
 * several, the newest, then the first by name. Without one the Ingress is left as it is.
 */
import type { KubeObject } from '../api/registry/object.js'
import { isPlainObject } from '../api/registry/object.js'
import { errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE, nameForRefusal } from './attributes.js'
import { type MutationInterface, actsOnOnly, handlesOnly } from './interfaces.js'
import { newestDefaultClass } from './newest-default-class.js'
import type { PluginInitialization } from './plugins.js'

export const DEFAULT_INGRESS_CLASS = 'DefaultIngressClass'

const IS_DEFAULT_INGRESS_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class'
/** The annotation that named an Ingress's class before spec.ingressClassName. */
const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class'

export class DefaultIngressClass implements MutationInterface {
  constructor(private readonly init: PluginInitialization) {}

  readonly handles = handlesOnly(CREATE)
  readonly actsOn = actsOnOnly('ingresses.networking.k8s.io')

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.resource.group !== 'networking.k8s.io' || a.resource.resource !== 'ingresses' || a.subresource !== '') return
    const ingress = a.object
    if (!ingress) return
    const spec = isPlainObject(ingress.spec) ? ingress.spec : (ingress.spec = {})
    if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return
    if (ingress.metadata.annotations?.[INGRESS_CLASS_ANNOTATION] !== undefined) return
    const classes = this.init.stores()?.lookup('networking.k8s.io', 'v1', 'ingressclasses')
    if (!classes) throw errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), 'not yet ready to handle request')
    const chosen = newestDefaultClass((await classes.list()).items, isDefault)
    if (chosen?.metadata.name) spec.ingressClassName = chosen.metadata.name
  }
}

function isDefault(c: KubeObject): boolean {
  return c.metadata.annotations?.[IS_DEFAULT_INGRESS_CLASS_ANNOTATION] === 'true'
}
