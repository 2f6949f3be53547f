/**
 * The params a binding hands its policy (the reference's generic CollectParams): none without a
 * paramKind or a paramRef (the policy runs once with `params` null); the object `paramRef.name`
 * names, or every object `paramRef.selector` selects, in `paramRef.namespace` or the request's
 * namespace for a namespaced paramKind; none found is an error under
 * `parameterNotFoundAction: Deny` and no evaluation under Allow.
 */
import { isPlainObject, type KubeObject } from '../../api/registry/object.js'
import { ApiError } from '../../api/status-errors.js'
import { labelSelectorRequirements } from '../../http/selectors.js'
import type { KindMapping } from './kinds.js'
import { PolicyConfigError } from './policy-error.js'

/** The policy's paramKind as its source resolved it: its mapping, or the policy has none. */
export type ParamSource = KindMapping | undefined

/** `null` stands for "no params" (one evaluation with `params` null). */
export type Param = KubeObject | null

export async function collectParams(paramKind: unknown, source: ParamSource, paramRef: unknown, namespace: string): Promise<Param[]> {
  if (!isPlainObject(paramKind)) return [null]
  if (!isPlainObject(paramRef)) return [null]
  if (!source) throw new PolicyConfigError(`paramKind kind \`${String(paramKind.apiVersion)}, Kind=${String(paramKind.kind)}\` not known`)
  const refNamespace = typeof paramRef.namespace === 'string' ? paramRef.namespace : ''
  let paramsNamespace: string | undefined
  if (source.namespaced) {
    paramsNamespace = refNamespace !== '' ? refNamespace : namespace
    if (paramsNamespace === '') throw new PolicyConfigError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources')
  } else if (refNamespace !== '') {
    throw new PolicyConfigError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`')
  }
  const name = typeof paramRef.name === 'string' ? paramRef.name : ''
  let params: Param[]
  if (name !== '') {
    if (paramRef.selector !== undefined && paramRef.selector !== null) throw new PolicyConfigError('paramRef.name and paramRef.selector are mutually exclusive')
    try {
      params = [await source.store.get(paramsNamespace, name)]
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err
      params = []
    }
  } else if (isPlainObject(paramRef.selector)) {
    let labels: ReturnType<typeof labelSelectorRequirements>
    try {
      labels = labelSelectorRequirements(paramRef.selector as Parameters<typeof labelSelectorRequirements>[0])
    } catch (err) {
      // A selector that cannot be parsed is a configuration error, as the reference's.
      throw new PolicyConfigError((err as Error).message)
    }
    const { items } = await source.store.list({ ...(paramsNamespace !== undefined ? { namespace: paramsNamespace } : {}), labels })
    params = items
  } else {
    throw new PolicyConfigError('one of name or selector must be provided')
  }
  if (params.length === 0 && paramRef.parameterNotFoundAction === 'Deny') {
    throw new PolicyConfigError('no params found for policy binding with `Deny` parameterNotFoundAction')
  }
  return params
}
