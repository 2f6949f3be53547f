/** Gathers the command line to check from the three places `flags validate` takes it from. */
import { readFileSync } from 'node:fs'
import { UsageError, commandLineFromFile, commandLineFromManifest } from './sources.js'

interface CommandLineInput {
  /** Flags given after `--`. */
  argv: readonly string[]
  file?: string
  manifest?: string
}

function read(path: string, what: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(`cannot read the ${what} ${JSON.stringify(path)}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`)
  }
}

export function gatherCommandLine(input: CommandLineInput): string[] {
  const sources = [input.file !== undefined, input.manifest !== undefined].filter(Boolean).length
  if (sources > 1) throw new UsageError('give either --file or --manifest, not both')
  if (sources === 1 && input.argv.length > 0) throw new UsageError('give the flags either after -- or in --file/--manifest, not both')
  if (input.file !== undefined) return commandLineFromFile(read(input.file, 'file'))
  if (input.manifest !== undefined) return commandLineFromManifest(read(input.manifest, 'manifest'))
  return [...input.argv]
}

export { UsageError }
