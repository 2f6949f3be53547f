/**
 * What the generic store hands admission: the request's attributes (the reference's
 * `admission.Attributes`) and the one hook it calls with them. Declared here, below the
 * admission room, so that the store knows no plugin by name and api/ never imports
 * admission/: `src/server/admission/` builds its plugins and its chain on these types, and the
 * server passes the chain in through RegistryOptions.admission.
 */
import type { UserInfo } from '../../http/types.js'
import type { KubeObject } from './object.js'

/** The operation being admitted (the reference's admission.Operation). */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT'

export interface AdmissionAttributes {
  readonly operation: AdmissionOperation
  /** The type of the object, e.g. {group: '', version: 'v1', kind: 'Pod'}. */
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string }
  /** The resource requested (not the kind), e.g. {group: '', version: 'v1', resource: 'pods'}. */
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string }
  /** '' for the main resource; `status`, `binding`, `exec` ... otherwise. */
  readonly subresource: string
  /** '' for cluster-scoped resources. */
  readonly namespace: string
  /** The name as the request presents it: '' on a create that relies on generateName. */
  readonly name: string
  /** The object being written (mutating plugins may change it); absent on DELETE and CONNECT. */
  readonly object?: KubeObject
  /** The stored object: UPDATE and DELETE only. */
  readonly oldObject?: KubeObject
  /** Nothing will be persisted; plugins with side effects must not act. */
  readonly dryRun: boolean
  /** The operation's options (CreateOptions, UpdateOptions, DeleteOptions ...), when known. */
  readonly options?: unknown
  /** Who asks, when the caller knows (the handlers pass it; in-process writes may not). */
  readonly userInfo?: UserInfo
  /**
   * Audit annotations plugins add (the reference's AddAnnotation): `<plugin>.admission.k8s.io/<key>`
   * to value. Made on first use; the request's audit event carries them.
   */
  annotations?: Record<string, string>
  /** Warnings for the response's `Warning` headers (the reference's warning.AddWarning). */
  warnings?: string[]
  /**
   * Milliseconds spent calling webhooks since the last record (the reference's webhook latency
   * trackers): mutating ones add up (called one after the other), validating ones keep the
   * longest (called together). For a slow request's audit annotations.
   */
  webhookLatency?: { mutating: number; validating: number }
}

/**
 * What a request hands admission beyond the object (the reference's handlers build the
 * attributes record with them): who asks, the operation's options, and where the warnings
 * and audit annotations plugins leave go. Writes made inside the server pass none.
 */
export interface AdmissionRequest {
  readonly userInfo?: UserInfo
  /** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions, as the request gave them. */
  readonly options?: unknown
  /**
   * The subresource the request named when the store writes the main resource for it (the
   * scale subresource writes the whole object).
   */
  readonly subresource?: string
  /**
   * A deletecollection's item: the reference admits it with the collection request's
   * attributes, whose name is ''.
   */
  readonly collection?: boolean
  /** Called after each admission phase, refused or not: the warnings and annotations it left. */
  record?(attributes: AdmissionAttributes): void
}

/**
 * The admission chain as the store sees it: `admit` (the mutating plugins, in order) then
 * `validate` (the validating ones). Either throws an ApiError to refuse the request.
 */
export interface AdmissionHook {
  admit(attributes: AdmissionAttributes): Promise<void>
  validate(attributes: AdmissionAttributes): Promise<void>
}
