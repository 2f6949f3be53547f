/** The README sections generated from the catalogue, by marker name. */
import { CLIENT_OPTIONS, PATCH_OPTIONS, SERVER_OPTIONS } from './catalogue/index.js'
import { renderFeatureGateReference, renderOptionReference } from './reference-doc.js'

export function readmeSections(): Record<string, string> {
  return {
    'server-options': renderOptionReference(SERVER_OPTIONS),
    'feature-gates': renderFeatureGateReference(),
    'client-options': renderOptionReference([...PATCH_OPTIONS, ...CLIENT_OPTIONS]),
  }
}

/** Replaces the text between `<!-- name -->` and `<!-- name-stop -->`. */
export function replaceSection(text: string, name: string, body: string): string {
  const start = `<!-- ${name} -->`
  const stop = `<!-- ${name}-stop -->`
  const from = text.indexOf(start)
  const to = text.indexOf(stop)
  if (from === -1 || to === -1 || to < from) throw new Error(`README.md lacks the markers ${start} … ${stop}`)
  return `${text.slice(0, from + start.length)}\n${body}${text.slice(to)}`
}

/** The text between the markers, for checking that the README is current. */
export function sectionOf(text: string, name: string): string | undefined {
  const start = `<!-- ${name} -->`
  const from = text.indexOf(start)
  const to = text.indexOf(`<!-- ${name}-stop -->`)
  return from === -1 || to === -1 ? undefined : text.slice(from + start.length + 1, to)
}
