/**
 * What a write request hands admission (the reference's handlers build the attributes record
 * with it): the requester, the operation's options as the reference's attributes carry them
 * (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions), and where the plugins' warnings
 * (the response's `Warning` headers) and audit annotations (the request's, for its audit event)
 * go.
 */
import { addWarnings } from '../../http/warnings.js'
import type { AdmissionAttributes, AdmissionRequest } from '../registry/admission-hook.js'
import type { Scope } from './scope.js'

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions'

/** The options of a create, update or patch from the query (the reference's decoded query parameters). */
export function writeOptions(scope: Pick<Scope, 'query'>, kind: Exclude<OptionsKind, 'DeleteOptions'>): Record<string, unknown> {
  const { query } = scope
  const dryRun = query.getAll('dryRun')
  const fieldManager = query.get('fieldManager')
  const fieldValidation = query.get('fieldValidation')
  const force = query.get('force')
  return {
    kind,
    apiVersion: 'meta.k8s.io/v1',
    ...(dryRun.length > 0 ? { dryRun } : {}),
    ...(kind === 'PatchOptions' && force !== null && force !== '' ? { force: force === 'true' } : {}),
    ...(fieldManager ? { fieldManager } : {}),
    ...(fieldValidation ? { fieldValidation } : {}),
  }
}

/** The request's side of admission, with `options` as the attributes carry them. */
export function admissionRequest(scope: Pick<Scope, 'ctx' | 'res'>, options: Record<string, unknown>, extra: { subresource?: string; collection?: boolean } = {}): AdmissionRequest {
  return {
    ...(scope.ctx.user ? { userInfo: scope.ctx.user } : {}),
    options,
    ...extra,
    record(attributes: AdmissionAttributes) {
      if (attributes.warnings?.length) addWarnings(scope.res, attributes.warnings)
      if (attributes.annotations) scope.ctx.auditAnnotations = { ...scope.ctx.auditAnnotations, ...attributes.annotations }
      if (attributes.webhookLatency) {
        // Taken once: the next phase records its own calls.
        scope.ctx.latencyTrackers?.add('mutatingWebhook', attributes.webhookLatency.mutating)
        scope.ctx.latencyTrackers?.max('validatingWebhook', attributes.webhookLatency.validating)
        attributes.webhookLatency = undefined
      }
    },
  }
}
