/**
 * `client <alias> ...`: an alias of the preferences file (--clientrc, as kubectl's kuberc)
 * runs its command with the alias's arguments and defaults. Anything else is still an
 * unknown command.
 */
import type { Hook } from '@oclif/core'

const hook: Hook<'command_not_found'> = async function ({ id, argv }) {
  const { Errors } = await import('@oclif/core')
  const { ClientrcError, clientrcFlag, expandAlias, loadPreferences } = await import('../../core/client/clientrc.js')
  const { CLIENT_OPTIONS, PATCH_OPTIONS } = await import('../../core/options/catalogue/index.js')
  let expanded: string[] | undefined
  let command: string | undefined
  try {
    const prefs = loadPreferences(clientrcFlag(argv ?? []))
    command = prefs?.aliases.find((a) => a.name === id)?.command
    if (command) expanded = expandAlias(id, argv ?? [], command, prefs, [...PATCH_OPTIONS, ...CLIENT_OPTIONS])
  } catch (err) {
    if (err instanceof ClientrcError) throw new Errors.CLIError(err.message, { exit: 1 })
    throw err
  }
  if (!command || !expanded) throw new Errors.CLIError(`command ${id} not found`)
  return this.config.runCommand(command, expanded)
}

export default hook
