/**
 * `client validate`'s check of a manifest set: every object created through the offline
 * dry-run server (dry-run-server.ts) as kubectl's `apply --dry-run=server` creates a new one
 * (POST with dryRun=All, fieldValidation=Strict, the field manager kubectl-client-side-apply),
 * in the input's order, the answer reported with kubectl's text.
 *
 * What a cluster would already hold when the input is applied is created for real first, so
 * that the other objects are checked against it: the namespaces (with their default service
 * account, and their Pod Security labels), the CustomResourceDefinitions (their custom
 * resources are then served, with their schemas and x-kubernetes-validations rules), the
 * admission policies and their bindings with the objects of their paramKinds, and the
 * service accounts and RBAC objects. Each is reported with the answer to its own creation, a
 * binding with a warning when its role is missing (missing-role-refs.ts).
 */
import { apiErrorText, statusOf } from '../../core/client/api-error-text.js'
import type { Manifest } from '../../core/validate/manifests.js'
import { manifestJson } from '../../core/validate/manifests.js'
import type { ObjectReport, ValidationReport } from '../../core/validate/report.js'
import type { Strategy } from '../api/registry/strategy.js'
import type { RecordedAnswer } from './in-memory-exchange.js'
import type { DryRunServer } from './dry-run-server.js'
import { isBinding, missingRoleWarning } from './missing-role-refs.js'
import { warningTexts } from './warning-headers.js'

export interface ValidateOptions {
  /** The namespace of namespaced objects that name none (kubectl's current namespace). */
  namespace: string
}

/** The kinds created for real, in this order of groups, before the rest is checked. */
const CONTEXT_STAGES: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['v1/Namespace']),
  new Set(['apiextensions.k8s.io/v1/CustomResourceDefinition']),
  new Set([
    'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy',
    'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding',
    'admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicy',
    'admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicyBinding',
    'admissionregistration.k8s.io/v1alpha1/MutatingAdmissionPolicy',
    'admissionregistration.k8s.io/v1alpha1/MutatingAdmissionPolicyBinding',
    'v1/ServiceAccount',
    'rbac.authorization.k8s.io/v1/Role',
    'rbac.authorization.k8s.io/v1/ClusterRole',
    'rbac.authorization.k8s.io/v1/RoleBinding',
    'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
  ]),
]

const SYSTEM_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease'])

type Obj = Record<string, unknown>

export async function validateManifests(server: DryRunServer, manifests: readonly Manifest[], options: ValidateOptions): Promise<ValidationReport> {
  const reports: ObjectReport[] = manifests.map(describe)
  const done = new Set<number>()
  const paramKinds = policyParamKinds(manifests)
  const stages = [...CONTEXT_STAGES.slice(0, 2), new Set([...CONTEXT_STAGES[2]!, ...paramKinds])]
  let kinds = await server.kinds()
  for (const stage of stages) {
    for (let i = 0; i < manifests.length; i++) {
      const object = manifests[i]!.object
      if (!object || !stage.has(typeKey(object))) continue
      done.add(i)
      await create(server, kinds, manifests[i]!, reports[i]!, options, false)
    }
    // A CRD created now serves its kind to what follows.
    kinds = await server.kinds()
  }
  // Every role of the input exists now: a binding's role missing still is missing for good.
  for (const i of done) {
    const object = manifests[i]!.object!
    if (!isBinding(object) || reports[i]!.error !== undefined) continue
    const meta = (object.metadata ?? {}) as Obj
    const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : options.namespace
    const warning = await missingRoleWarning(server, object, namespace)
    if (warning) reports[i]!.warnings.push(warning)
  }
  // The policies just written are in effect for the next request.
  server.forgetCachedReads()
  for (let i = 0; i < manifests.length; i++) {
    if (done.has(i)) continue
    const m = manifests[i]!
    if (!m.object) {
      reports[i]!.error = `error: ${m.error ?? 'unreadable document'}`
      reports[i]!.reason = 'Input'
      continue
    }
    await create(server, kinds, m, reports[i]!, options, true)
  }
  return { objects: reports }
}

function describe(m: Manifest): ObjectReport {
  const o = m.object
  const meta = (o?.metadata ?? {}) as Obj
  return {
    source: m.source,
    document: m.document,
    ...(m.line !== undefined ? { line: m.line } : {}),
    ...(typeof o?.apiVersion === 'string' ? { apiVersion: o.apiVersion } : {}),
    ...(typeof o?.kind === 'string' ? { kind: o.kind } : {}),
    ...(typeof meta.name === 'string' ? { name: meta.name } : {}),
    ...(typeof meta.namespace === 'string' ? { namespace: meta.namespace } : {}),
    warnings: [],
  }
}

const typeKey = (o: Obj): string => `${String(o.apiVersion ?? '')}/${String(o.kind ?? '')}`

/** The `apiVersion/kind` of the paramKinds of the input's admission policies: their objects are the policies' parameters. */
function policyParamKinds(manifests: readonly Manifest[]): string[] {
  const out: string[] = []
  for (const m of manifests) {
    const o = m.object
    if (!o || !/^(Validating|Mutating)AdmissionPolicy$/.test(String(o.kind))) continue
    const paramKind = ((o.spec ?? {}) as Obj).paramKind as Obj | undefined
    if (paramKind && typeof paramKind.apiVersion === 'string' && typeof paramKind.kind === 'string') out.push(`${paramKind.apiVersion}/${paramKind.kind}`)
  }
  return out
}

/** The served kind of an object (kubectl's REST mapping). */
function mappingOf(kinds: readonly Strategy[], o: Obj): Strategy | undefined {
  const apiVersion = String(o.apiVersion ?? '')
  const kind = String(o.kind ?? '')
  return kinds.find((k) => k.kind === kind && (k.group === '' ? k.version : `${k.group}/${k.version}`) === apiVersion && !k.virtual)
}

async function create(server: DryRunServer, kinds: readonly Strategy[], m: Manifest, report: ObjectReport, options: ValidateOptions, dryRun: boolean): Promise<void> {
  const object = m.object!
  const meta = (object.metadata ?? {}) as Obj
  const mapping = mappingOf(kinds, object)
  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : options.namespace
  if (!mapping) {
    report.error = `error: resource mapping not found for name: ${JSON.stringify(String(meta.name ?? ''))} namespace: ${JSON.stringify(String(meta.namespace ?? ''))} from ${JSON.stringify(m.source)}: no matches for kind ${JSON.stringify(String(object.kind))} in version ${JSON.stringify(String(object.apiVersion ?? ''))}\nensure CRDs are installed first`
    report.reason = 'NotFound'
    return
  }
  if (mapping.namespaced) report.namespace = namespace
  const prefix = mapping.group === '' ? `/api/${mapping.version}` : `/apis/${mapping.group}/${mapping.version}`
  const collection = `${prefix}${mapping.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : ''}/${mapping.resource}`
  const query = `?${dryRun ? 'dryRun=All&' : ''}fieldManager=kubectl-client-side-apply&fieldValidation=Strict`
  const body = manifestJson(object)
  let answer: RecordedAnswer
  if (!dryRun && mapping.group === '' && mapping.resource === 'namespaces') {
    answer = await server.createNamespace(JSON.parse(body) as Obj)
    // A system namespace exists already: kubectl apply would change its labels (Pod Security levels).
    if (answer.status === 409 && SYSTEM_NAMESPACES.has(String(meta.name))) answer = await relabel(server, `${collection}/${String(meta.name)}`, meta)
  } else {
    answer = await server.send('POST', `${collection}${query}`, body)
  }
  report.warnings.push(...warningTexts(answer.headers.warning))
  if (answer.status < 300) return
  // cmdutil.AddSourceToErr: a Status message names the source; an Invalid's causes are printed without it.
  const status = statusOf(answer)
  let text = answer.body
  if (status && status.reason !== 'Invalid' && m.source !== '') {
    text = JSON.stringify({ ...status, message: `error when creating ${JSON.stringify(m.source)}: ${status.message ?? ''}` })
  }
  report.error = apiErrorText({ status: answer.status, body: text })
  report.reason = status?.reason ?? String(answer.status)
}

/** The input's labels and annotations on a namespace the server already has. */
async function relabel(server: DryRunServer, path: string, meta: Obj): Promise<RecordedAnswer> {
  const current = await server.send('GET', path)
  if (current.status !== 200) return current
  const existing = JSON.parse(current.body) as { metadata: Obj }
  for (const key of ['labels', 'annotations']) {
    if (meta[key] && typeof meta[key] === 'object') existing.metadata[key] = { ...((existing.metadata[key] as Obj | undefined) ?? {}), ...(meta[key] as Obj) }
  }
  return server.send('PUT', `${path}?fieldManager=kubectl-client-side-apply&fieldValidation=Strict`, existing)
}
