/**
 * The built `client cluster start` for end-to-end tests, as test/support/api-server.ts spawns
 * `server start`: a free loopback port, its own certificate and data directories, the
 * administrator's kubeconfig, stopped by PID. `openCluster` gives a kubectl session on it.
 */
import { ApiServer, type StartOptions } from './api-server.js'
import { KubectlSession } from './kubectl-session.js'
import { until } from './until.js'

/** `cluster start` with `args` (e.g. `--nodes=3`), resolved once /readyz passes. */
export function startCluster(options: Omit<StartOptions, 'command'> = {}): Promise<ApiServer> {
  return ApiServer.start({ waitFor: 'ready', ...options, command: 'cluster' })
}

/** A kubectl 1.35 session on a new `cluster start` (call from a `before` hook). */
export function openCluster(ctx: Mocha.Context, prefix: string, options: Omit<StartOptions, 'command'> = {}): Promise<KubectlSession> {
  return KubectlSession.open(ctx, prefix, { waitFor: 'ready', ...options, command: 'cluster' })
}

/** Waits until kubectl's output for `args` matches `pattern`, and gives it. */
export async function waitForKubectl(session: KubectlSession, args: string[], pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  let last = ''
  try {
    return await until(`kubectl ${args.join(' ')} to match ${pattern}`, async () => {
      last = (await session.run(...args)).stdout
      return pattern.test(last) ? last : undefined
    }, timeoutMs, 200)
  } catch (err) {
    throw new Error(`${(err as Error).message}; last output: ${last}`)
  }
}
