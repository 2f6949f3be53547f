/**
 * The base of the commands whose flags oclif parses (`health check`, `health watch`,
 * `flags validate`): their command lines behave as kubectl's do. Boolean flags take a value
 * (`--insecure-skip-tls-verify=true`), and a usage error prints one `error:` line and one
 * `See 'client <command> --help' for usage.` line, then exits with the command's usage code.
 */
import { Command } from '@oclif/core'
import { BooleanValueError, takeBooleanValues, usageErrorText, usageHint } from './usage-errors.js'

export abstract class KubectlStyleCommand extends Command {
  /** The exit status of a usage error (the health and flags commands document 2). */
  static usageExitCode = 2

  /** Values given as `--flag=value` to boolean flags, laid over what oclif parses. */
  protected booleanValues: Record<string, boolean> = {}

  /** `health check`, from the command's id. */
  protected get commandName(): string {
    return (this.id ?? '').replace(/:/g, ' ')
  }

  override async init(): Promise<void> {
    await super.init()
    const flags = (this.constructor as typeof Command).flags ?? {}
    const booleans = new Set(Object.entries(flags).filter(([, f]) => f.type === 'boolean').map(([name]) => name))
    const taken = takeBooleanValues(this.argv, booleans)
    this.argv = taken.argv
    this.booleanValues = taken.values
  }

  /** Extra lines between the error and the hint (e.g. where an option belongs). */
  protected usageNotes(_err: Error): string[] {
    return []
  }

  /** Prints a usage error in kubectl's style and exits with the usage code. */
  protected usageError(what: string, notes: readonly string[] = []): never {
    process.stderr.write(`error: ${what}\n${notes.map((n) => `${n}\n`).join('')}${usageHint(this.commandName)}\n`)
    return this.exit((this.constructor as typeof KubectlStyleCommand).usageExitCode)
  }

  override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    if (err instanceof BooleanValueError) return this.usageError(err.message)
    const what = usageErrorText(err, this.commandName)
    if (what !== undefined) return this.usageError(what, this.usageNotes(err))
    return super.catch(err)
  }
}
