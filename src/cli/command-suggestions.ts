/**
 * cobra's answer to a mistyped command: `error: unknown command "server strat" for "client"`,
 * then `Did you mean this?` with the commands within two edits (or that start with what was
 * typed), then the hint.
 */
import { editDistance } from '../core/flags/suggest.js'

/**
 * The names at the typed command's depth (`helth` is compared with `health`, `patch`, ...,
 * not with `health check`), as cobra compares with the subcommands of the level it stopped
 * at; `help` is not suggested (cobra leaves its help command out), then the commands under
 * what was typed.
 */
export function suggestCommands(typed: string, commands: readonly string[]): string[] {
  const depth = typed.split(' ').length
  const names = new Set(
    commands.filter((c) => c !== 'help').flatMap((c) => {
      const words = c.split(' ')
      return words.length >= depth ? [words.slice(0, depth).join(' ')] : []
    }),
  )
  const near = [...names].filter((n) => n !== typed && (editDistance(typed, n) <= 2 || (typed.length >= 3 && n.startsWith(typed))))
  return [...near, ...commands.filter((c) => c.startsWith(`${typed} `))]
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
