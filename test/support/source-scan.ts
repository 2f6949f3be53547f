/** Reading the repository's own code files, for the tests of test/project/ that grep them. */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const CODE = /\.(ts|tsx|js|mjs|cjs|sh)$/

/** Every code file under the given top-level folders, as repository-relative paths, sorted. */
export function codeFiles(...tops: string[]): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (CODE.test(entry.name)) out.push(relative(ROOT, full))
    }
  }
  for (const top of tops) walk(join(ROOT, top))
  return out.sort()
}

export interface Hit {
  file: string
  line: number
  /** The first capture group of the match, or the whole match. */
  text: string
  /** The whole line. */
  source: string
}

/** Every match of `pattern` (a global RegExp) in the files, line by line. */
export function scan(files: string[], pattern: RegExp): Hit[] {
  const hits: Hit[] = []
  for (const file of files) {
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((source, i) => {
        for (const m of source.matchAll(pattern)) hits.push({ file, line: i + 1, text: m[1] ?? m[0], source })
      })
  }
  return hits
}

/** One `file:line: text` per hit, for an assertion message. */
export function showHits(hits: Hit[]): string {
  return hits.map((h) => `${h.file}:${h.line}: ${h.text}`).join('\n')
}
