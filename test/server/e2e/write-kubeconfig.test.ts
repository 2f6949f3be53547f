import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ApiServer } from '../../support/api-server.js'
import { requireTool } from '../../support/tools.js'

const run = promisify(execFile)

describe('server start --write-kubeconfig (end to end)', function () {
  this.timeout(60_000)
  let server: ApiServer | undefined
  let dir: string

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'client-kubeconfig-'))
  })
  afterEach(async () => {
    await server?.stop()
    server = undefined
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('writes a 0600 kubeconfig that the real kubectl uses with certificate verification', async function () {
    const kubectl = requireTool(this, 'kubectl')
    const file = join(dir, 'nested', 'config')
    server = await ApiServer.start({ args: [`--write-kubeconfig=${file}`], waitFor: 'ready' })
    assert.equal(statSync(file).mode & 0o777, 0o600)
    const text = readFileSync(file, 'utf8')
    assert.match(text, new RegExp(`server: https://127\\.0\\.0\\.1:${server.port}\\n`))
    assert.match(text, /^current-context: client$/m)
    // The CA in the file is the one the server generated; kubectl verifies the server with it.
    assert.ok(text.includes(Buffer.from(server.ca()).toString('base64')))
    // stdin closed: kubectl would prompt for a user name if the file named no identity.
    const { stdout } = await run(kubectl, ['--kubeconfig', file, 'get', 'ns', 'default', '-o', 'name'], { timeout: 20_000 })
    assert.equal(stdout, 'namespace/default\n')
    // The identity is the administrator's client certificate, signed by the same CA.
    const cert = new X509Certificate(Buffer.from(/client-certificate-data: (\S+)/.exec(text)![1]!, 'base64'))
    assert.equal(cert.subject, 'O=system:masters\nCN=system:admin')
    assert.ok(cert.checkIssued(new X509Certificate(server.ca())))
    assert.match(text, /client-key-data: \S+/)
    assert.match(server.logs, new RegExp(`wrote a kubeconfig for https://127\\.0\\.0\\.1:${server.port} to ${file.replace(/[.]/g, '\\.')}`))
  })

  it('an unwritable path is a start-up error naming the option, and the server exits 1', async () => {
    const blocker = join(dir, 'file-not-dir')
    await run('touch', [blocker])
    server = await ApiServer.start({ args: [`--write-kubeconfig=${join(blocker, 'config')}`], waitFor: 'none' })
    const code = await server.waitForExit(30_000)
    assert.equal(code, 1)
    assert.match(server.logs, /--write-kubeconfig: cannot write .*file-not-dir\/config: (EEXIST|ENOTDIR)/)
    assert.doesNotMatch(server.logs, /\n\s+at /)
  })
})
