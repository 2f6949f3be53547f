/**
 * Where a command line to check comes from besides argv: a file holding a command line (or
 * one flag per line, with `#` comments), or a static-pod manifest of the API server.
 */
import { loadAllYaml } from '../util/yaml.js'

/** A problem with the input itself (exit code 2), not with the flags in it. */
export class UsageError extends Error {}

/** Program words that may lead a saved command line; they are not flags. */
const PROGRAM = /(^|\/)(kube-apiserver|apiserver|client)$|^(server|start)$/

/** Splits text into words as a POSIX shell would for quoting purposes: quotes, backslashes, comments. */
export function shellWords(text: string): string[] {
  const words: string[] = []
  let word: string | undefined
  let i = 0
  const push = () => {
    if (word !== undefined) words.push(word)
    word = undefined
  }
  while (i < text.length) {
    const c = text[i]
    if (c === '\\' && (text[i + 1] === '\n' || (text[i + 1] === '\r' && text[i + 2] === '\n'))) {
      i += text[i + 1] === '\r' ? 3 : 2
      continue
    }
    if (/\s/.test(c)) {
      push()
      i++
      continue
    }
    if (c === '#' && word === undefined) {
      while (i < text.length && text[i] !== '\n') i++
      continue
    }
    if (c === "'") {
      const end = text.indexOf("'", i + 1)
      if (end === -1) throw new UsageError(`unterminated ' quote at offset ${i}`)
      word = (word ?? '') + text.slice(i + 1, end)
      i = end + 1
      continue
    }
    if (c === '"') {
      let j = i + 1
      let out = ''
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && '"\\$`'.includes(text[j + 1] ?? '')) j++
        out += text[j++]
      }
      if (j >= text.length) throw new UsageError(`unterminated " quote at offset ${i}`)
      word = (word ?? '') + out
      i = j + 1
      continue
    }
    if (c === '\\') {
      word = (word ?? '') + (text[i + 1] ?? '')
      i += 2
      continue
    }
    word = (word ?? '') + c
    i++
  }
  push()
  return words
}

function dropProgram(words: string[]): string[] {
  let start = 0
  while (start < words.length && !words[start].startsWith('-') && PROGRAM.test(words[start])) start++
  return words.slice(start)
}

/** A saved command line: the whole file is one line of words, or one flag per line. */
export function commandLineFromFile(text: string): string[] {
  return dropProgram(shellWords(text))
}

interface Container {
  name?: string
  command?: unknown
  args?: unknown
}

function containersOf(doc: unknown): Container[] {
  if (!doc || typeof doc !== 'object') return []
  const spec = (doc as { spec?: { containers?: unknown; template?: { spec?: { containers?: unknown } } } }).spec
  const list = spec?.containers ?? spec?.template?.spec?.containers
  return Array.isArray(list) ? (list as Container[]) : []
}

const strings = (value: unknown, where: string): string[] => {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')) {
    throw new UsageError(`${where} must be a list of strings`)
  }
  return value.map(String)
}

/**
 * The API server container's command and arguments from a static-pod (or workload) manifest.
 * The container is the one whose name or command names an API server.
 */
export function commandLineFromManifest(text: string): string[] {
  let docs: unknown[]
  try {
    docs = loadAllYaml(text)
  } catch (err) {
    throw new UsageError(`the manifest is not valid YAML: ${(err as Error).message.split('\n')[0]}`)
  }
  const isServer = (c: Container) =>
    /apiserver/.test(c.name ?? '') || strings(c.command, 'command').some((w) => /(^|\/)(kube-)?apiserver$/.test(w))
  for (const doc of docs) {
    const container = containersOf(doc).find(isServer)
    if (!container) continue
    const where = `container ${JSON.stringify(container.name ?? '')}`
    return dropProgram([...strings(container.command, `${where} command`), ...strings(container.args, `${where} args`)])
  }
  throw new UsageError('the manifest has no API server container (a container named like *apiserver* or running kube-apiserver)')
}
