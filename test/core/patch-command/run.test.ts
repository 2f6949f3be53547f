/** runPatch's ending: the profile is written however the work ended, and no failure is lost. */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runPatch } from '../../../src/core/patch-command/run.js'
import { fakeDeps } from '../../commands/patch/fake-deps.js'

describe('patch: --profile and failures', () => {
  let cwd: string
  beforeEach(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'patch-run-'))
    fs.writeFileSync(path.join(cwd, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n')
  })
  afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }))

  const patch = (profileOutput: string, err: (text: string) => void, out: (text: string) => void = () => {}) =>
    runPatch(['--local', '-f', 'cm.yaml', '-p', '{"data":{"a":"1"}}', '--profile=cpu', `--profile-output=${profileOutput}`], 'kubectl', { cwd, out, err, readStdin: async () => '', fetchUrl: async () => '' }, async () => fakeDeps)

  it('an unwritable profile fails a command that worked, with the reason', async () => {
    let stderr = ''
    let stdout = ''
    const result = await patch('missing-dir/out', (t) => (stderr += t), (t) => (stdout += t))
    assert.equal(stdout, 'configmap/x patched\n')
    assert.equal(result.exitCode, 1)
    assert.match(stderr, /^error: .*missing-dir/)
  })

  it('when the work throws and the profile cannot be written either, both are reported', async () => {
    // The first write to stderr fails (a closed pipe), so the work's error report throws.
    const writes: string[] = []
    const err = (text: string): void => {
      if (writes.push(text) === 1) throw Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })
    }
    const failing = () => runPatch(['--local', '-f', 'absent.yaml', '-p', '{}', '--profile=cpu', '--profile-output=missing-dir/out'], 'kubectl', { cwd, out: () => {}, err, readStdin: async () => '', fetchUrl: async () => '' }, async () => fakeDeps)
    await assert.rejects(failing(), { message: 'write EPIPE' })
    assert.equal(writes.length, 2, JSON.stringify(writes))
    assert.match(writes[0]!, /absent\.yaml/)
    assert.match(writes[1]!, /^error: .*missing-dir/)
  })

  it('a profile written after the work threw leaves the exception as it was', async () => {
    const err = (): void => {
      throw new Error('stderr closed')
    }
    const failing = runPatch(['--local', '-f', 'absent.yaml', '-p', '{}', '--profile=cpu', '--profile-output=out.cpuprofile'], 'kubectl', { cwd, out: () => {}, err, readStdin: async () => '', fetchUrl: async () => '' }, async () => fakeDeps)
    await assert.rejects(failing, { message: 'stderr closed' })
    assert.ok(JSON.parse(fs.readFileSync(path.join(cwd, 'out.cpuprofile'), 'utf8')).nodes.length > 0)
  })
})
