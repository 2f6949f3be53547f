/**
 * The documentation sections generated from the catalogue: for each page under `docs/`, its
 * sections by marker name. `scripts/update-readme.js` writes them; a test checks they are current.
 */
import { CLIENT_OPTIONS, CLUSTER_OPTIONS, PATCH_OPTIONS, SERVER_OPTIONS } from './catalogue/index.js'
import { renderFeatureGateReference, renderOptionReference } from './reference-doc.js'

export function docSections(): Record<string, Record<string, string>> {
  return {
    'docs/server-start.md': {
      'server-options': renderOptionReference(SERVER_OPTIONS),
      'feature-gates': renderFeatureGateReference(),
    },
    'docs/cluster.md': {
      'cluster-options': renderOptionReference(CLUSTER_OPTIONS),
    },
    'docs/client-options.md': {
      'client-options': renderOptionReference([...PATCH_OPTIONS, ...CLIENT_OPTIONS]),
    },
  }
}

/** Replaces the text between `<!-- name -->` and `<!-- name-stop -->`. */
export function replaceSection(text: string, name: string, body: string, file = 'the page'): string {
  const start = `<!-- ${name} -->`
  const stop = `<!-- ${name}-stop -->`
  const from = text.indexOf(start)
  const to = text.indexOf(stop)
  if (from === -1 || to === -1 || to < from) throw new Error(`${file} lacks the markers ${start} … ${stop}`)
  return `${text.slice(0, from + start.length)}\n${body}${text.slice(to)}`
}

/** The text between the markers, for checking that a page is current. */
export function sectionOf(text: string, name: string): string | undefined {
  const start = `<!-- ${name} -->`
  const from = text.indexOf(start)
  const to = text.indexOf(`<!-- ${name}-stop -->`)
  return from === -1 || to === -1 ? undefined : text.slice(from + start.length + 1, to)
}
