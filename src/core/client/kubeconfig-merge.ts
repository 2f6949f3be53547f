/**
 * A server's entries in a kubeconfig shared with other clusters (`~/.kube/config`), as kind
 * and k3d keep theirs: merging replaces or adds the cluster, user and context of the server's
 * name and makes that context current, leaving every other entry as it was; removing deletes
 * the three entries and, when the context was current, leaves no current context (kind's
 * `delete cluster`). The file is rewritten whole (js-yaml; comments are not kept, as with
 * kubectl's `config` commands) and readable by its owner only.
 */
import { existsSync, readFileSync } from 'node:fs'
import { jsYaml } from '../util/yaml.js'
import { dumpedKubeconfigText, type ServerKubeconfig, writeOwnerOnly } from './kubeconfig-writer.js'

interface Named {
  name?: unknown
  [field: string]: unknown
}

type Kubeconfig = Record<string, unknown> & { clusters?: Named[]; users?: Named[]; contexts?: Named[]; 'current-context'?: string }

const LISTS = ['clusters', 'users', 'contexts'] as const

function load(file: string): Kubeconfig | undefined {
  if (!existsSync(file)) return undefined
  const doc = jsYaml().load(readFileSync(file, 'utf8')) as unknown
  if (doc === undefined || doc === null) return undefined
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${file} is not a kubeconfig (not a YAML mapping)`)
  for (const list of LISTS) {
    const value = (doc as Kubeconfig)[list]
    if (value !== undefined && value !== null && !Array.isArray(value)) throw new Error(`${file} is not a kubeconfig (${list} is not a list)`)
  }
  return doc as Kubeconfig
}

function save(file: string, doc: Kubeconfig): void {
  writeOwnerOnly(file, jsYaml().dump(doc, { lineWidth: -1 }))
}

/** Merges the server's cluster, user and context into `file` (created when missing) and makes its context current. */
export function mergeServerKubeconfig(file: string, cfg: ServerKubeconfig): void {
  const own = jsYaml().load(dumpedKubeconfigText(cfg)) as Kubeconfig
  const doc = load(file)
  if (!doc) return save(file, own)
  for (const list of LISTS) {
    const entry = own[list]![0]!
    const entries = [...(doc[list] ?? [])]
    const at = entries.findIndex((e) => e?.name === cfg.name)
    if (at === -1) entries.push(entry)
    else entries[at] = entry
    doc[list] = entries
  }
  doc['current-context'] = cfg.name
  save(file, { apiVersion: 'v1', kind: 'Config', ...doc })
}

/**
 * Which of the cluster, user and context named `name` were removed from `file` (none: the file
 * is left untouched), and whether the context was the current one.
 */
export function removeServerKubeconfig(file: string, name: string): { cluster: boolean; user: boolean; context: boolean; wasCurrent: boolean } {
  const doc = load(file)
  const removed = { cluster: false, user: false, context: false, wasCurrent: false }
  if (!doc) return removed
  const kinds = { clusters: 'cluster', users: 'user', contexts: 'context' } as const
  for (const list of LISTS) {
    const entries = doc[list] ?? []
    const kept = entries.filter((e) => e?.name !== name)
    if (kept.length !== entries.length) {
      removed[kinds[list]] = true
      doc[list] = kept
    }
  }
  if (removed.context && doc['current-context'] === name) {
    doc['current-context'] = ''
    removed.wasCurrent = true
  }
  if (removed.cluster || removed.user || removed.context) save(file, doc)
  return removed
}
