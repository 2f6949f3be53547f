/**
 * Which of several classes marked default wins, as the reference's DefaultStorageClass and
 * DefaultIngressClass plugins choose (pkg/volume/util GetDefaultClass, defaultingressclass
 * getDefaultClass): the newest by creationTimestamp, then the first by name.
 */
import type { KubeObject } from '../api/registry/object.js'

export function newestDefaultClass(classes: readonly KubeObject[], isDefault: (c: KubeObject) => boolean): KubeObject | undefined {
  const created = (c: KubeObject) => Date.parse(c.metadata.creationTimestamp ?? '') || 0
  const name = (c: KubeObject) => c.metadata.name ?? ''
  return classes.filter(isDefault).sort((x, y) => created(y) - created(x) || (name(x) < name(y) ? -1 : name(x) > name(y) ? 1 : 0))[0]
}
