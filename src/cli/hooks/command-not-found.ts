/**
 * `client <alias> ...`: an alias of the preferences file (--clientrc, as kubectl's kuberc)
 * runs its command with the alias's arguments and defaults. Anything else is an unknown
 * command, answered as kubectl answers one (with the nearest commands), exit 1.
 */
import type { Hook } from '@oclif/core'

/** Ends the command with this exit status; oclif's handler prints nothing for it. */
function quietExit(code: number): Error {
  return Object.assign(new Error(`exit ${code}`), { skipOclifErrorHandling: true, oclif: { exit: code } })
}

const hook: Hook<'command_not_found'> = async function ({ id, argv }) {
  const { ClientrcError, clientrcFlag, expandAlias, loadPreferences } = await import('../../core/client/clientrc.js')
  const { CLIENT_OPTIONS, PATCH_OPTIONS } = await import('../../core/options/catalogue/index.js')
  let expanded: string[] | undefined
  let command: string | undefined
  try {
    const prefs = loadPreferences(clientrcFlag(argv ?? []))
    command = prefs?.aliases.find((a) => a.name === id)?.command
    if (command) expanded = expandAlias(id, argv ?? [], command, prefs, [...PATCH_OPTIONS, ...CLIENT_OPTIONS])
  } catch (err) {
    if (err instanceof ClientrcError) {
      process.stderr.write(`error: ${err.message}\n`)
      throw quietExit(1)
    }
    throw err
  }
  if (!command || !expanded) {
    const { unknownCommandText, unexpectedArgumentText } = await import('../command-suggestions.js')
    const commands = this.config.commandIDs.filter((c) => !c.startsWith('plugins')).map((c) => c.replace(/:/g, ' '))
    const typed = id.replace(/:/g, ' ')
    // `client health check extra`: a command that takes no arguments was given one.
    const parent = commands.filter((c) => typed.startsWith(`${c} `)).sort((a, b) => b.length - a.length)[0]
    if (parent) {
      const loaded = (await this.config.findCommand(parent.replace(/ /g, ':'))?.load()) as { usageExitCode?: number } | undefined
      process.stderr.write(unexpectedArgumentText(typed.slice(parent.length + 1).split(' ')[0]!, parent))
      throw quietExit(loaded?.usageExitCode ?? 1)
    }
    process.stderr.write(unknownCommandText(typed, commands))
    throw quietExit(1)
  }
  return this.config.runCommand(command, expanded)
}

export default hook
