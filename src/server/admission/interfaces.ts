/**
 * What an admission plugin is (the reference's admission.Interface, MutationInterface and
 * ValidationInterface): it says which operations it handles, and admits (may change the
 * object) or validates (may not), or both. Either throws an ApiError to refuse.
 */
import type { AdmissionAttributes, AdmissionOperation } from './attributes.js'

export interface AdmissionPlugin {
  /** Whether the plugin has anything to say about `operation` (CREATE, UPDATE, DELETE, CONNECT). */
  handles(operation: AdmissionOperation): boolean
  /**
   * Whether the plugin may act on a request for `resource` of API group `group` (any of its
   * subresources, any operation it handles); absent: on every resource. The chain asks once per
   * resource and calls the plugin for no other, observing its metrics as for a call that did
   * nothing: the answer must cover every request the plugin would do anything for (change,
   * refuse, warn, annotate, read), as the plugin's own early returns do.
   */
  actsOn?(group: string, resource: string): boolean
  /** Releases what the plugin started (informers); the server calls it at shutdown. */
  stop?(): void
  /**
   * Reads again, on the next request, what the plugin keeps from the stores for a short while
   * (the admission policies): the offline dry-run server calls it after writing the input's
   * policies, whose requests follow at once.
   */
  forgetCachedReads?(): void
}

/** A mutating plugin: runs in the first phase, in the plugins' order, and may change the object. */
export interface MutationInterface extends AdmissionPlugin {
  admit(attributes: AdmissionAttributes): Promise<void>
}

/** A validating plugin: runs after every mutating one, and must not change the object. */
export interface ValidationInterface extends AdmissionPlugin {
  validate(attributes: AdmissionAttributes): Promise<void>
}

export function isMutation(plugin: AdmissionPlugin): plugin is MutationInterface {
  return typeof (plugin as Partial<MutationInterface>).admit === 'function'
}

export function isValidation(plugin: AdmissionPlugin): plugin is ValidationInterface {
  return typeof (plugin as Partial<ValidationInterface>).validate === 'function'
}

/** The reference's admission.Handler: a plugin handling a fixed set of operations. */
export function handlesOnly(...operations: AdmissionOperation[]): (operation: AdmissionOperation) => boolean {
  const set = new Set(operations)
  return (operation) => set.has(operation)
}

/**
 * A plugin's actsOn for a fixed set of resources, each as refusals name it (`pods`,
 * `ingresses.networking.k8s.io`).
 */
export function actsOnOnly(...resources: string[]): (group: string, resource: string) => boolean {
  const set = new Set(resources)
  return (group, resource) => set.has(group === '' ? resource : `${resource}.${group}`)
}
