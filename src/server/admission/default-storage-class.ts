/**
 * The DefaultStorageClass admission plugin (the reference's
 * `plugin/pkg/admission/storage/storageclass/setdefault`): a new PersistentVolumeClaim that
 * asks for no class (no spec.storageClassName, not even "", and no beta class annotation)
 * gets the default StorageClass, the one annotated
 * `storageclass.kubernetes.io/is-default-class: "true"` (or its beta form); of several, the
 * newest, then the first by name (pkg/volume/util GetDefaultClass). Without one the claim is
 * left as it is.
 */
import type { KubeObject } from '../api/registry/object.js'
import { isPlainObject } from '../api/registry/object.js'
import { errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE, nameForRefusal } from './attributes.js'
import { type MutationInterface, actsOnOnly, handlesOnly } from './interfaces.js'
import { newestDefaultClass } from './newest-default-class.js'
import type { PluginInitialization } from './plugins.js'

export const DEFAULT_STORAGE_CLASS = 'DefaultStorageClass'

const IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class'
const BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class'
/** The beta annotation that named a claim's class before spec.storageClassName. */
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class'

export class DefaultStorageClass implements MutationInterface {
  constructor(private readonly init: PluginInitialization) {}

  readonly handles = handlesOnly(CREATE)
  readonly actsOn = actsOnOnly('persistentvolumeclaims')

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.resource.group !== '' || a.resource.resource !== 'persistentvolumeclaims' || a.subresource !== '') return
    const pvc = a.object
    if (!pvc || hasClass(pvc)) return
    const classes = this.init.stores()?.lookup('storage.k8s.io', 'v1', 'storageclasses')
    if (!classes) throw errors.forbidden({ group: '', resource: 'persistentvolumeclaims' }, nameForRefusal(a), 'not yet ready to handle request')
    const chosen = newestDefaultClass((await classes.list()).items, isDefault)
    if (chosen?.metadata.name) (isPlainObject(pvc.spec) ? pvc.spec : (pvc.spec = {})).storageClassName = chosen.metadata.name
  }
}

/** The reference's PersistentVolumeClaimHasClass: the beta annotation or the field, even "". */
function hasClass(pvc: KubeObject): boolean {
  if (pvc.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] !== undefined) return true
  const className = isPlainObject(pvc.spec) ? pvc.spec.storageClassName : undefined
  return className !== undefined && className !== null
}

/** The reference's IsDefaultAnnotation: either annotation, exactly "true". */
function isDefault(c: KubeObject): boolean {
  const annotations = c.metadata.annotations
  return annotations?.[IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true' || annotations?.[BETA_IS_DEFAULT_STORAGE_CLASS_ANNOTATION] === 'true'
}
