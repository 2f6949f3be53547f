/**
 * The official Python client's own end-to-end suite (kubernetes/e2e_test/ of
 * kubernetes-client/python at the tag of the python3-kubernetes installed, copied by
 * scripts/copy-python-e2e.mjs into test/fixtures/python/client-e2e/) run unchanged by
 * /usr/bin/python3 against `client cluster start`. Its tests that need a node (a pod that
 * reaches Running, `exec` with loops, gzip, interactive stdin and exit codes) pass through the
 * simulated nodes and their node agent, and so does test_portforward_http (an nginx pod's page
 * through `port-forward`: the node agent's simulated nginx, docs/cluster.md); the rest of the
 * suite (apps, batch, create from YAML, watch) runs too. Not run: test_portforward_raw (skipped
 * by the suite itself at this tag: "skipping due to extreme flakiness").
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { ApiServer } from '../../support/api-server.js'
import { startCluster } from '../../support/cluster.js'
import { toolCommand } from '../../support/tools.js'

const run = promisify(execFile)
const PYTHON = toolCommand('python3-kubernetes')
const SUITE_DIR = fileURLToPath(new URL('../../fixtures/python/client-e2e/', import.meta.url))

/** The suite's tests that need a node: a Running pod, exec and port-forward through the node agent. */
const NODE_TESTS = ['test_client.TestClient.test_pod_apis', 'test_client.TestClient.test_exit_code', 'test_client.TestClient.test_portforward_http']
/** The others, by module or test (test_portforward_raw left out, see above). */
const OTHER_TESTS = [
  'test_client.TestClient.test_service_apis',
  'test_client.TestClient.test_replication_controller_apis',
  'test_client.TestClient.test_configmap_apis',
  'test_client.TestClient.test_node_apis',
  'test_apps',
  'test_batch',
  'test_utils',
  'test_watch',
]

async function pythonClientInstalled(): Promise<boolean> {
  if (!existsSync(PYTHON)) return false
  try {
    await run(PYTHON, ['-c', 'import kubernetes'])
    return true
  } catch {
    return false
  }
}

/** Runs tests of the suite (run_e2e_suite.py fails on a failure, an error or a skip) and gives unittest's report. */
async function runSuite(kubeconfig: string, tests: string[]): Promise<string> {
  try {
    const { stderr } = await run(PYTHON, ['run_e2e_suite.py', ...tests], { cwd: SUITE_DIR, env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 240_000, maxBuffer: 16 << 20 })
    return stderr
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string }
    assert.fail(`the Python client's e2e tests failed:\n${stderr ?? ''}\n${(stdout ?? '').slice(-4000)}`)
  }
}

describe("cluster start: the official Python client's own e2e suite", function () {
  this.timeout(300_000)
  let cluster: ApiServer | undefined

  before(async function () {
    if (!(await pythonClientInstalled())) {
      // CI installs python3-kubernetes (.ci/run): there its absence is a failure, never a skip.
      if (process.env.CI === 'true') throw new Error(`${PYTHON} cannot import kubernetes: install python3-kubernetes`)
      this.skip()
    }
    cluster = await startCluster()
  })
  after(async () => cluster?.stop())

  it('passes the tests that need a node: a pod runs, exec streams (loops, gzip, stdin, exit codes), port-forward to nginx', async () => {
    const report = await runSuite(cluster!.adminKubeconfig, NODE_TESTS)
    assert.match(report, /^Ran 3 tests in /m)
    assert.match(report, /^OK$/m)
  })

  it('passes the rest of the suite (apps, batch, create from YAML, watch)', async () => {
    const report = await runSuite(cluster!.adminKubeconfig, OTHER_TESTS)
    assert.match(report, /^OK$/m)
  })
})
