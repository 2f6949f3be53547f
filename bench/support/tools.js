// The programs outside the repository that benchmarks run, from the list the tests and .ci/run
// share (test/support/tools.json).
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const { tools } = JSON.parse(readFileSync(new URL('../../test/support/tools.json', import.meta.url), 'utf8'))

/** The command to run for a tool of the list (its environment override first); a path relative to the repository comes back absolute. */
export function toolCommand(name) {
  const tool = tools[name]
  const command = (tool.env && process.env[tool.env]) || tool.command
  return command.includes('/') && !isAbsolute(command) ? resolve(root, command) : command
}

/** Why the tool cannot be run here, or undefined when it can. */
export function whyMissing(name) {
  const tool = tools[name]
  const run = spawnSync(toolCommand(name), tool.probe, { stdio: 'ignore' })
  if (run.error) return `${name} cannot be run (${toolCommand(name)}: ${run.error.code ?? run.error.message}); install: ${tool.install}`
  if (run.status !== (tool.probeExit ?? 0)) return `${name} does not work (${toolCommand(name)} exited ${run.status ?? run.signal}); install: ${tool.install}`
  return undefined
}
