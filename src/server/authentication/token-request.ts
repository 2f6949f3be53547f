/**
 * The `serviceaccounts/<name>/token` subresource (reference:
 * pkg/registry/core/serviceaccount/storage/token.go): a TokenRequest in, a bound token out.
 * Audiences default to the server's; the lifetime to an hour, at least 10 minutes, capped
 * by --service-account-max-token-expiration (with a warning); a token bound to a pod and
 * asked for with the warn-only lifetime (3607 s) lasts a year with
 * --service-account-extend-token-expiration. The bound pod, secret or node must exist (and
 * have the uid given); a pod must run as that service account. The request goes through
 * admission first, as the create it is.
 */
import { admitSubresourceCreate } from '../api/handlers/subresource-admission.js'
import type { VirtualHandler, VirtualScope } from '../api/index.js'
import { decodeRequestBody, negotiateOutput, readBody, writeObject } from '../api/negotiation.js'
import { type KubeObject, isPlainObject, nowTimestamp } from '../api/registry/object.js'
import { invalidValue } from '../api/registry/strategy.js'
import { ApiError, errors } from '../api/status-errors.js'
import { failureStatus } from '../http/status.js'
import { EXTENDED_EXPIRATION_SECONDS, type TokenIssuer, WARN_ONLY_EXPIRATION_SECONDS } from './service-account.js'

type Obj = Record<string, unknown>

export interface TokenRequestOptions {
  issuer: TokenIssuer
  /** --api-audiences (or the issuer). */
  apiAudiences: readonly string[]
  /** --service-account-max-token-expiration in seconds; 0: none. */
  maxExpirationSeconds: number
  extendExpiration: boolean
  /** The extended lifetime (a year, or the external signer's maximum if shorter). */
  extendedExpirationSeconds?: number
}

const MIN_EXPIRATION_SECONDS = 600
const MAX_EXPIRATION_SECONDS = 2 ** 32

async function getObject(scope: VirtualScope, resource: string, namespace: string | undefined, name: string): Promise<Obj> {
  const store = scope.registry.lookup('', 'v1', resource)
  if (!store) throw errors.notFound({ group: '', resource }, name)
  return (await store.get(namespace, name)) as unknown as Obj
}

function uidOf(o: Obj): string {
  return String(((o.metadata ?? {}) as Obj).uid ?? '')
}

export function tokenRequestHandler(options: TokenRequestOptions): VirtualHandler {
  return async (scope) => {
    const { req, res } = scope
    const name = scope.name!
    const namespace = scope.namespace!
    const body = await decodeRequestBody(req, await readBody(req), { kind: 'TokenRequest' })
    if (!isPlainObject(body)) throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`)
    if (!isPlainObject(body.metadata)) body.metadata = {}
    // Admitted as the create of the service account's `token` subresource (NodeRestriction binds a kubelet's tokens to its pods).
    await admitSubresourceCreate(scope.registry.options.admission, scope, {
      kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      resource: { group: '', version: 'v1', resource: 'serviceaccounts' },
      subresource: 'token',
      namespace,
      name,
      object: body as KubeObject,
      dryRun: scope.query.getAll('dryRun').includes('All'),
    })
    const metadata: Obj = isPlainObject(body.metadata) ? { ...body.metadata } : {}
    const spec: Obj = isPlainObject(body.spec) ? { ...body.spec } : {}
    const invalid = (field: string, value: unknown, detail: string) => errors.invalid('authentication.k8s.io', 'TokenRequest', name, [invalidValue(field, value, detail)])
    if (typeof metadata.name === 'string' && metadata.name !== '' && metadata.name !== name) throw invalid('metadata.name', metadata.name, 'must match the service account name if specified')
    if (typeof metadata.namespace === 'string' && metadata.namespace !== '' && metadata.namespace !== namespace) {
      throw invalid('metadata.namespace', metadata.namespace, 'must match the service account namespace if specified')
    }
    const serviceAccount = await getObject(scope, 'serviceaccounts', namespace, name)

    let expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600
    if (expirationSeconds < MIN_EXPIRATION_SECONDS) throw invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes')
    if (expirationSeconds > MAX_EXPIRATION_SECONDS) throw invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds')
    const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : [...options.apiAudiences]
    const now = new Date()

    let pod: Obj | undefined
    let secret: Obj | undefined
    let node: Obj | undefined
    const ref = isPlainObject(spec.boundObjectRef) ? spec.boundObjectRef : undefined
    if (ref) {
      const apiVersion = String(ref.apiVersion ?? '')
      const group = apiVersion.includes('/') ? apiVersion.split('/')[0]! : ''
      const kind = String(ref.kind ?? '')
      const refName = String(ref.name ?? '')
      let uid: string
      if (group === '' && kind === 'Pod') {
        pod = await getObject(scope, 'pods', namespace, refName)
        const podSpec = (pod.spec ?? {}) as Obj
        // The reference's ServiceAccount admission sets `default` on pods that name none.
        const podServiceAccount = typeof podSpec.serviceAccountName === 'string' && podSpec.serviceAccountName !== '' ? podSpec.serviceAccountName : 'default'
        if (podServiceAccount !== name) {
          throw errors.badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`)
        }
        uid = uidOf(pod)
        const nodeName = typeof podSpec.nodeName === 'string' ? podSpec.nodeName : ''
        if (nodeName !== '') {
          try {
            node = await getObject(scope, 'nodes', undefined, nodeName)
          } catch {
            // The node's name is still recorded, without its uid.
            node = { metadata: { name: nodeName } }
          }
        }
      } else if (group === '' && kind === 'Node') {
        node = await getObject(scope, 'nodes', undefined, refName)
        uid = uidOf(node)
      } else if (group === '' && kind === 'Secret') {
        secret = await getObject(scope, 'secrets', namespace, refName)
        uid = uidOf(secret)
      } else {
        throw errors.badRequest(`cannot bind token to object of type ${group === '' ? '' : `${group}/`}${apiVersion.split('/').pop() ?? ''}, Kind=${kind}`)
      }
      if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== uid) {
        throw errors.conflict(
          { group: '', resource: kind },
          refName,
          `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        )
      }
    }

    const warnings: string[] = []
    if (options.maxExpirationSeconds > 0 && expirationSeconds > options.maxExpirationSeconds) {
      warnings.push(`requested expiration of ${expirationSeconds} seconds shortened to ${options.maxExpirationSeconds} seconds`)
      expirationSeconds = options.maxExpirationSeconds
    }
    let tokenSeconds = expirationSeconds
    let warnAfterSeconds: number | undefined
    const kubeAudiences = audiences.length === options.apiAudiences.length && audiences.every((a) => options.apiAudiences.includes(a))
    if (options.extendExpiration && pod && expirationSeconds === WARN_ONLY_EXPIRATION_SECONDS && kubeAudiences) {
      warnAfterSeconds = expirationSeconds
      tokenSeconds = options.extendedExpirationSeconds ?? EXTENDED_EXPIRATION_SECONDS
    }
    let token: string
    try {
      token = await options.issuer.generate({ serviceAccount, ...(pod ? { pod } : {}), ...(secret ? { secret } : {}), ...(node ? { node } : {}), audiences, expirationSeconds: tokenSeconds, ...(warnAfterSeconds ? { warnAfterSeconds } : {}) }, now)
    } catch (err) {
      throw new ApiError(failureStatus(500, 'InternalError', `Internal error occurred: failed to generate token: ${(err as Error).message}`))
    }
    for (const warning of warnings) res.setHeader('Warning', `299 - ${JSON.stringify(warning)}`)
    const answer = {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { ...metadata, name, namespace, creationTimestamp: nowTimestamp(now) },
      spec: { ...spec, audiences, expirationSeconds, boundObjectRef: ref ?? null },
      status: { token, expirationTimestamp: nowTimestamp(new Date(now.getTime() + expirationSeconds * 1000)) },
    }
    await writeObject(res, 201, answer, negotiateOutput(req.headers.accept, { table: false }))
  }
}
