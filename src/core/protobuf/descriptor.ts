/** The shape of generated/k8s-descriptor.json (see scripts/gen-proto-descriptor.mjs). */
export interface K8sDescriptor {
  source: string
  /** "<apiVersion>/<Kind>" -> full message name. */
  kinds: Record<string, string>
  /** Kind -> message for meta types registered in every group version. */
  anyGroup: Record<string, string>
  /** Message -> proto field -> JSON name ("" = inlined embedded struct), only where they differ. */
  json: Record<string, Record<string, string>>
  /** Message -> scalar fields marked +optional. */
  optional: Record<string, string[]>
  /** Messages standing for Go named slice types (JSON form is the array). */
  listWrappers: string[]
  /** protobufjs JSON form of every message. */
  proto: Record<string, unknown>
}
