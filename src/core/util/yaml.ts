/**
 * YAML input, read the way the reference's decoder (go-yaml v2 under sigs.k8s.io/yaml) bounds
 * it. js-yaml keeps an alias as a second reference to its anchor's value, so loading a
 * "billion laughs" document is cheap, but everything that walks the result afterwards (JSON
 * encoding, validation, storage) expands every alias; go-yaml refuses such a document while
 * decoding it. `loadYaml` and `loadAllYaml` are the only way YAML is read: they bound the
 * nesting and refuse excessive aliasing with go-yaml's rule and text.
 *
 * js-yaml itself is loaded on first use: most runs of the CLI never read YAML, and start-up
 * time is part of the product (a flag check in CI runs on every commit).
 */
import { createRequire } from 'node:module'
import type { LoadOptions } from 'js-yaml'
import { MAX_NESTING_DEPTH } from './nesting.js'

type JsYaml = typeof import('js-yaml')

let yaml: JsYaml | undefined

export function jsYaml(): JsYaml {
  yaml ??= createRequire(import.meta.url)('js-yaml') as JsYaml
  return yaml
}

/** A document the decoder refuses for its aliases, with go-yaml's text. */
export class YamlAliasingError extends Error {}

export const EXCESSIVE_ALIASING = 'yaml: document contains excessive aliasing'

// go-yaml's scale: small documents may owe 99 % of their decoded nodes to aliases, documents of
// 4,000,000 nodes and more only 10 %, linearly in between.
const RATIO_RANGE_LOW = 400_000
const RATIO_RANGE_HIGH = 4_000_000

function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= RATIO_RANGE_LOW) return 0.99
  if (decodeCount >= RATIO_RANGE_HIGH) return 0.1
  return 0.99 - 0.89 * ((decodeCount - RATIO_RANGE_LOW) / (RATIO_RANGE_HIGH - RATIO_RANGE_LOW))
}

/**
 * Counts the nodes go-yaml would decode for `doc` and how many of them come from alias
 * expansion, without expanding anything: a value met a second time (same reference) is an
 * alias, and adds its memoized size to both counts. The check runs at the end of each alias,
 * where the alias share is highest, so it fails exactly when go-yaml's running check would.
 */
export function checkYamlAliasing(doc: unknown): void {
  const sizes = new Map<object, number>()
  const open = new Set<object>()
  let decoded = 0
  let aliased = 0
  const size = (v: unknown): number => {
    if (v === null || typeof v !== 'object') return 1
    const known = sizes.get(v)
    if (known !== undefined) return known
    let n = 1
    if (Array.isArray(v)) for (const item of v) n += size(item)
    else for (const item of Object.values(v)) n += 1 + size(item)
    sizes.set(v, n)
    return n
  }
  const visit = (v: unknown): void => {
    decoded++
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return
    if (open.has(v)) throw new YamlAliasingError('yaml: anchor value contains itself')
    if (sizes.has(v)) {
      const n = sizes.get(v)!
      decoded += n - 1
      aliased += n
      if (aliased > 100 && decoded > 1000 && aliased / decoded > allowedAliasRatio(decoded)) throw new YamlAliasingError(EXCESSIVE_ALIASING)
      return
    }
    open.add(v)
    if (Array.isArray(v)) for (const item of v) visit(item)
    else {
      for (const item of Object.values(v)) {
        decoded++
        visit(item)
      }
    }
    open.delete(v)
    size(v)
  }
  visit(doc)
}

function bounded(options: LoadOptions | undefined): LoadOptions {
  return { maxDepth: MAX_NESTING_DEPTH, ...options } as LoadOptions
}

/** One YAML document, nesting and aliasing bounded (js-yaml's exceptions for syntax, YamlAliasingError for aliases). */
export function loadYaml(text: string, options?: LoadOptions): unknown {
  const doc = jsYaml().load(text, bounded(options))
  if (mayAlias(text)) checkYamlAliasing(doc)
  return doc
}

/** Every YAML document of a stream, each bounded as loadYaml does. */
export function loadAllYaml(text: string, options?: LoadOptions): unknown[] {
  const docs = jsYaml().loadAll(text, undefined, bounded(options))
  if (mayAlias(text)) for (const doc of docs) checkYamlAliasing(doc)
  return docs
}

/**
 * Whether a text can hold an alias (`*anchor`, also in a merge key `<<: *anchor`): without a
 * `*` no value is shared, and the aliasing check (a walk of the whole document, a fifth of
 * its parse) has nothing to find.
 */
function mayAlias(text: string): boolean {
  return text.includes('*')
}
