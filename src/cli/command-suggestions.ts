/**
 * cobra's answer to a mistyped command: `error: unknown command "server strat" for "client"`,
 * then `Did you mean this?` with the commands within two edits (or that start with what was
 * typed), then the hint.
 */
import { editDistance } from '../core/flags/suggest.js'

export function suggestCommands(typed: string, commands: readonly string[]): string[] {
  return commands.filter((c) => c !== typed && (editDistance(typed, c) <= 2 || c.startsWith(`${typed} `) || (typed.length >= 3 && c.startsWith(typed))))
}

export function unknownCommandText(typed: string, commands: readonly string[]): string {
  const suggestions = suggestCommands(typed, commands)
  const lines = [`error: unknown command ${JSON.stringify(typed)} for "client"`]
  if (suggestions.length > 0) lines.push('', 'Did you mean this?', ...suggestions.map((s) => `\t${s}`), '')
  lines.push("See 'client --help' for usage.")
  return `${lines.join('\n')}\n`
}

/** cobra's answer to an argument given to a command that takes none. */
export function unexpectedArgumentText(argument: string, command: string): string {
  return `error: unknown command ${JSON.stringify(argument)} for ${JSON.stringify(`client ${command}`)}\nSee 'client ${command} --help' for usage.\n`
}
