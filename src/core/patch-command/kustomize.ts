/**
 * `-k DIR`: a small subset of kustomize, enough for the common overlays: `resources` (files
 * and directories holding a kustomization), `namespace`, `namePrefix`, `nameSuffix`,
 * `commonLabels`, `commonAnnotations`, `patches` (strategic merge or JSON 6902, inline or
 * by path, with an optional `target`) and `images`. Any other field is refused by name.
 */
import fs from 'node:fs'
import path from 'node:path'
import { isRecord, splitStream, toItems } from './inputs.js'
import type { PatchDeps, Value } from './types.js'

const SUPPORTED = ['resources', 'namespace', 'namePrefix', 'nameSuffix', 'commonLabels', 'commonAnnotations', 'patches', 'images']
const FILE_NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization']
/** Kinds whose pod template and selector carry the common labels (kustomize's default field specs). */
const WORKLOADS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'ReplicationController'])

type Obj = Record<string, Value>
type KustomizeResult = { objects: Obj[]; warnings: string[] } | { error: string }

class KustomizeError extends Error {}

export function buildKustomization(dir: string, shown: string, deps: PatchDeps): KustomizeResult {
  const warnings: string[] = []
  try {
    return { objects: build(dir, shown, deps, warnings, new Set()), warnings }
  } catch (err) {
    if (err instanceof KustomizeError) return { error: err.message }
    throw err
  }
}

function build(dir: string, shown: string, deps: PatchDeps, warnings: string[], seen: Set<string>): Obj[] {
  if (seen.has(dir)) throw new KustomizeError(`kustomization cycle at ${shown}`)
  seen.add(dir)
  const file = FILE_NAMES.map((n) => path.join(dir, n)).find((p) => fs.existsSync(p))
  if (!file) {
    if (!fs.existsSync(dir)) throw new KustomizeError(`must build at directory: not a valid directory: evalsymlink failure on '${shown}' : lstat ${shown}: no such file or directory`)
    throw new KustomizeError(`unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '${dir}'`)
  }
  let k: Value
  try {
    k = deps.decodeYaml(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw new KustomizeError(`invalid kustomization ${path.relative(process.cwd(), file)}: ${(err as Error).message}`)
  }
  if (k === null) k = {}
  if (!isRecord(k)) throw new KustomizeError(`invalid kustomization in ${shown}: not a map`)
  for (const key of Object.keys(k)) {
    if (key === 'apiVersion' || key === 'kind') continue
    if (!SUPPORTED.includes(key)) {
      throw new KustomizeError(`kustomization field "${key}" (in ${shown}) is not supported by this client; supported fields: ${SUPPORTED.join(', ')}`)
    }
  }
  const objects: Obj[] = []
  for (const res of strings(k.resources, 'resources')) {
    const p = path.resolve(dir, res)
    const s = path.join(shown, res)
    if (/^https?:\/\//.test(res)) throw new KustomizeError(`kustomization resource ${res}: remote resources are not supported by this client`)
    if (!fs.existsSync(p)) throw new KustomizeError(`accumulating resources: accumulation err='accumulating resources from '${res}': open ${p}: no such file or directory'`)
    if (fs.statSync(p).isDirectory()) objects.push(...build(p, s, deps, warnings, seen))
    else objects.push(...readObjects(fs.readFileSync(p, 'utf8'), s, deps))
  }
  if (k.patches !== undefined) applyPatches(objects, k.patches, dir, deps)
  if (k.images !== undefined) applyImages(objects, k.images)
  const prefix = typeof k.namePrefix === 'string' ? k.namePrefix : ''
  const suffix = typeof k.nameSuffix === 'string' ? k.nameSuffix : ''
  for (const o of objects) {
    const meta = metadata(o)
    if ((prefix || suffix) && typeof meta.name === 'string' && o.kind !== 'Namespace') meta.name = prefix + meta.name + suffix
    if (typeof k.namespace === 'string' && k.namespace !== '' && !CLUSTER_SCOPED.has(String(o.kind))) meta.namespace = k.namespace
  }
  if (k.commonLabels !== undefined) {
    warnings.push("# Warning: 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically.\n")
    const labels = stringMap(k.commonLabels, 'commonLabels')
    for (const o of objects) {
      addTo(metadata(o), 'labels', labels)
      const spec = isRecord(o.spec) ? o.spec : undefined
      if (!spec) continue
      if (o.kind === 'Service') addTo(spec, 'selector', labels)
      if (WORKLOADS.has(String(o.kind))) {
        if (o.kind === 'ReplicationController') addTo(spec, 'selector', labels)
        else {
          if (!isRecord(spec.selector)) spec.selector = {}
          addTo(spec.selector as Obj, 'matchLabels', labels)
        }
        addTo(templateMeta(spec), 'labels', labels)
      }
      if (o.kind === 'CronJob' && isRecord(spec.jobTemplate)) {
        addTo(metadataOf(spec.jobTemplate as Obj), 'labels', labels)
        if (isRecord((spec.jobTemplate as Obj).spec)) addTo(templateMeta((spec.jobTemplate as Obj).spec as Obj), 'labels', labels)
      }
    }
  }
  if (k.commonAnnotations !== undefined) {
    const annotations = stringMap(k.commonAnnotations, 'commonAnnotations')
    for (const o of objects) {
      addTo(metadata(o), 'annotations', annotations)
      if (WORKLOADS.has(String(o.kind)) && isRecord(o.spec)) addTo(templateMeta(o.spec), 'annotations', annotations)
    }
  }
  return objects
}

const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'PersistentVolume', 'StorageClass', 'Node', 'PriorityClass', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'APIService'])

function readObjects(text: string, shown: string, deps: PatchDeps): Obj[] {
  const out: Obj[] = []
  for (const doc of splitStream(text)) {
    if (doc.text.trim() === '') continue
    let value: Value
    try {
      value = doc.json ? deps.decodeJson(doc.text) : deps.decodeYaml(doc.text)
    } catch (err) {
      throw new KustomizeError(`accumulating resources from '${shown}': ${(err as Error).message}`)
    }
    if (value === null) continue
    for (const item of toItems(value, deps.compactJson(value), shown, deps)) {
      if ('error' in item) throw new KustomizeError(item.error)
      out.push(item.object)
    }
  }
  return out
}

function strings(v: Value, field: string): string[] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new KustomizeError(`kustomization field "${field}" must be a list of strings`)
  return v as string[]
}

function stringMap(v: Value, field: string): Record<string, string> {
  if (!isRecord(v)) throw new KustomizeError(`kustomization field "${field}" must be a map of strings`)
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(v)) out[key] = typeof value === 'string' ? value : String(value)
  return out
}

function metadataOf(o: Obj): Obj {
  if (!isRecord(o.metadata)) o.metadata = {}
  return o.metadata as Obj
}
const metadata = metadataOf

function templateMeta(spec: Obj): Obj {
  if (!isRecord(spec.template)) spec.template = {}
  return metadataOf(spec.template as Obj)
}

function addTo(parent: Obj, key: string, entries: Record<string, string>) {
  if (!isRecord(parent[key])) parent[key] = {}
  Object.assign(parent[key] as Obj, entries)
}

function applyPatches(objects: Obj[], patches: Value, dir: string, deps: PatchDeps) {
  if (!Array.isArray(patches)) throw new KustomizeError('kustomization field "patches" must be a list')
  for (const entry of patches) {
    if (!isRecord(entry)) throw new KustomizeError('kustomization field "patches": each entry must be a map')
    let text: string
    if (typeof entry.patch === 'string') text = entry.patch
    else if (typeof entry.path === 'string') {
      try {
        text = fs.readFileSync(path.resolve(dir, entry.path), 'utf8')
      } catch {
        throw new KustomizeError(`kustomization patch file ${entry.path}: no such file or directory`)
      }
    } else throw new KustomizeError('kustomization field "patches": each entry needs "patch" or "path"')
    const parsed = deps.decodeYaml(text)
    const target = isRecord(entry.target) ? entry.target : undefined
    const isJson = Array.isArray(parsed)
    const matches = (o: Obj) => {
      const meta = metadata(o)
      if (target) {
        const [group, version] = String(o.apiVersion ?? '').includes('/') ? String(o.apiVersion).split('/') : ['', String(o.apiVersion ?? '')]
        if (target.kind !== undefined && target.kind !== o.kind) return false
        if (target.name !== undefined && !new RegExp(`^(?:${target.name})$`).test(String(meta.name))) return false
        if (target.namespace !== undefined && target.namespace !== meta.namespace) return false
        if (target.group !== undefined && target.group !== group) return false
        if (target.version !== undefined && target.version !== version) return false
        return true
      }
      if (!isRecord(parsed)) return false
      const pm = isRecord(parsed.metadata) ? parsed.metadata : {}
      return parsed.kind === o.kind && pm.name === meta.name
    }
    if (isJson && !target) throw new KustomizeError('kustomization field "patches": a JSON 6902 patch needs a "target"')
    for (let i = 0; i < objects.length; i++) {
      if (!matches(objects[i])) continue
      const type = isJson ? 'json' : deps.isBuiltIn(String(objects[i].apiVersion ?? ''), String(objects[i].kind)) ? 'strategic' : 'merge'
      try {
        const patched = deps.applyPatch(objects[i], deps.parsePatch(text, type, false), type)
        if (isRecord(patched)) objects[i] = patched
      } catch (err) {
        throw new KustomizeError(`kustomization patch: ${(err as Error).message}`)
      }
    }
  }
}

function applyImages(objects: Obj[], images: Value) {
  if (!Array.isArray(images)) throw new KustomizeError('kustomization field "images" must be a list')
  const visit = (v: Value) => {
    if (Array.isArray(v)) v.forEach(visit)
    else if (isRecord(v)) {
      for (const [key, child] of Object.entries(v)) {
        if ((key === 'containers' || key === 'initContainers') && Array.isArray(child)) {
          for (const c of child) if (isRecord(c) && typeof c.image === 'string') c.image = rewriteImage(c.image, images)
        }
        visit(child)
      }
    }
  }
  objects.forEach(visit)
}

function rewriteImage(image: string, images: Value[]): string {
  const at = image.indexOf('@')
  const beforeDigest = at === -1 ? image : image.slice(0, at)
  const colon = beforeDigest.lastIndexOf(':')
  const hasTag = colon > beforeDigest.lastIndexOf('/')
  const name = hasTag ? beforeDigest.slice(0, colon) : beforeDigest
  let tagPart = image.slice(name.length)
  for (const rule of images) {
    if (!isRecord(rule) || rule.name !== name) continue
    const newName = typeof rule.newName === 'string' ? rule.newName : name
    if (typeof rule.digest === 'string') tagPart = `@${rule.digest}`
    else if (rule.newTag !== undefined) tagPart = `:${String(rule.newTag)}`
    return newName + tagPart
  }
  return image
}
