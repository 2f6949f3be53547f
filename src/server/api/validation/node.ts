/**
 * Validation of the node.k8s.io API group, after the reference's `pkg/apis/node/validation/validation.go`:
 * a RuntimeClass's handler is a DNS label (and immutable), its overhead valid resource limits,
 * its scheduling node selector valid labels and its tolerations valid and unique.
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, Rendered, duplicate, goJSON, invalid } from './field/index.js'
import { arr, obj, str } from './helpers.js'
import { validateContainerResourceRequirements } from './core/resources.js'
import { validateTolerations } from './core/scheduling.js'
import { validateLabels } from './meta-v1.js'
import { nameIsDNSLabel } from './names.js'
import { validateImmutableField } from './objectmeta.js'

type ErrorList = CauseLike[]

/** A toleration as the reference prints its internal struct (Go field names). */
function tolerationValue(t: Record<string, unknown>): Rendered {
  const seconds = typeof t.tolerationSeconds === 'number' ? String(t.tolerationSeconds) : 'null'
  return new Rendered(`{"Key":${goJSON(str(t.key))},"Operator":${goJSON(str(t.operator))},"Value":${goJSON(str(t.value))},"Effect":${goJSON(str(t.effect))},"TolerationSeconds":${seconds}}`)
}

/** validateScheduling; the reference passes `scheduling.tolerations` on, which adds `tolerations` again. */
function validateScheduling(s: Record<string, unknown>, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (s.nodeSelector !== undefined && s.nodeSelector !== null) errs.push(...validateLabels(s.nodeSelector, fldPath.child('nodeSelector')))
  const tolerationsPath = fldPath.child('tolerations')
  errs.push(...validateTolerations(s.tolerations, tolerationsPath.child('tolerations')))
  const seen = new Set<string>()
  arr(s.tolerations).forEach((t, i) => {
    const tol = obj(t)
    const key = JSON.stringify([str(tol.key), str(tol.operator), str(tol.value), str(tol.effect)])
    if (seen.has(key)) errs.push(duplicate(tolerationsPath.index(i), tolerationValue(tol)))
    else seen.add(key)
  })
  return errs
}

export function validateRuntimeClass(o: KubeObject): ErrorList {
  const handler = str(o.handler)
  const errs: ErrorList = nameIsDNSLabel(handler, false).map((m) => invalid(Path.of('handler'), handler, m))
  if (o.overhead !== undefined && o.overhead !== null) errs.push(...validateContainerResourceRequirements({ limits: obj(o.overhead).podFixed }, undefined, Path.of('overhead')))
  if (o.scheduling !== undefined && o.scheduling !== null) errs.push(...validateScheduling(obj(o.scheduling), Path.of('scheduling')))
  return errs
}

export function validateRuntimeClassUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return [...validateRuntimeClass(o), ...validateImmutableField(str(o.handler), str(old.handler), Path.of('handler'))]
}
