/**
 * The core API group's validation, after the reference's
 * `pkg/apis/core/validation/validation.go` and `events.go`, one file per area.
 */
export { validateConfigMap, validateConfigMapUpdate, validateSecret, validateSecretUpdate } from './config.js'
export {
  validateLimitRange,
  validateNamespace,
  validateNamespaceFinalizeUpdate,
  validateNamespaceStatusUpdate,
  validateNamespaceUpdate,
  validateNode,
  validateNodeUpdate,
  validateResourceQuota,
  validateResourceQuotaStatusUpdate,
  validateResourceQuotaUpdate,
} from './cluster.js'
export { validateEndpoints, validateNonSpecialIP } from './endpoints.js'
export { validateEvent, validateEventCreateV1, validateEventUpdate, validateStrictEventUpdate } from './events.js'
export { validatePersistentVolumeClaim, validatePersistentVolumeClaimSpec, validatePersistentVolumeClaimUpdate, validateTemplateObjectMeta } from './persistent-volume-claims.js'
export { validatePersistentVolume, validatePersistentVolumeUpdate } from './persistent-volumes.js'
export { type PodValidationOptions, validatePodSpecificAnnotations, validatePodTemplateSpec, validateStatefulSetTemplateMeta } from './pod-spec.js'
export {
  validatePod,
  validatePodEphemeralContainersUpdate,
  validatePodResize,
  validatePodStatusUpdate,
  validatePodTemplate,
  validatePodUpdate,
  validateReplicationController,
  validateReplicationControllerStatusUpdate,
} from './pods.js'
export { validateContainerResourceRequirements, validateResourceName, validateResourceQuantityValue } from './resources.js'
export { validateAffinity, validateNodeSelector, validateTolerations, validateTopologySpreadConstraints } from './scheduling.js'
export { validateService, validateServiceStatusUpdate, validateServiceUpdate } from './services.js'
