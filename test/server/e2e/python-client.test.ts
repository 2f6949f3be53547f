/**
 * The official Python client (Debian's python3-kubernetes, run by /usr/bin/python3) against
 * the built server, with the kubeconfig `--write-kubeconfig` writes: it creates, lists and
 * watches ConfigMaps (its watch sends `watch=True`) and lists them through its dynamic client.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { ApiServer } from '../../support/api-server.js'
import { toolCommand } from '../../support/tools.js'

const run = promisify(execFile)
const PYTHON = toolCommand('python3-kubernetes')
const SCRIPT = fileURLToPath(new URL('../../fixtures/python/create_list_watch.py', import.meta.url))

async function pythonClientInstalled(): Promise<boolean> {
  if (!existsSync(PYTHON)) return false
  try {
    await run(PYTHON, ['-c', 'import kubernetes'])
    return true
  } catch {
    return false
  }
}

describe('server: the official Python client (end to end)', function () {
  this.timeout(90_000)
  let server: ApiServer | undefined
  let dir: string

  before(async function () {
    if (!(await pythonClientInstalled())) {
      // CI installs python3-kubernetes (.ci/run): there its absence is a failure, never a skip.
      if (process.env.CI === 'true') throw new Error(`${PYTHON} cannot import kubernetes: install python3-kubernetes`)
      this.skip()
    }
    dir = mkdtempSync(join(tmpdir(), 'client-python-'))
  })
  after(async () => {
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('creates, lists and watches (watch=True streams) and lists through the dynamic client', async () => {
    const kubeconfig = join(dir, 'config')
    server = await ApiServer.start({ args: [`--write-kubeconfig=${kubeconfig}`], waitFor: 'ready' })
    await server.waitUntil('/readyz', 200)
    const { stdout } = await run(PYTHON, [SCRIPT, kubeconfig, 'python-e2e'], { timeout: 60_000 })
    const result = JSON.parse(stdout) as { created: { name: string; uid: string; data: Record<string, string> }; listed: string[]; watched: string[][]; dynamic: string[] }
    assert.equal(result.created.name, 'first')
    assert.match(result.created.uid, /^[0-9a-f-]{36}$/)
    assert.deepEqual(result.created.data, { k: 'v' })
    assert.deepEqual(result.listed, ['first'])
    // The initial state, then the object created while watching.
    assert.deepEqual(result.watched, [
      ['ADDED', 'first'],
      ['ADDED', 'second'],
    ])
    assert.deepEqual(result.dynamic, ['first', 'second'])
  })
})
