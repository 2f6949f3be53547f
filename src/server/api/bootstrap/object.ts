/**
 * An object a new cluster starts with, at its store key. The data of such objects stays with
 * the API it belongs to (the reference's apis/flowcontrol/bootstrap, the RBAC authorizer's
 * bootstrappolicy), below the rooms that write it (src/server/bootstrap/) or check against it
 * (the validation of the mandatory FlowSchemas).
 */
export interface BootstrapObject {
  /** Store key relative to the prefix, e.g. `/namespaces/default`. */
  key: string
  object: Record<string, unknown>
}
