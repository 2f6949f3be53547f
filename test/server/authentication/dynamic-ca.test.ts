import assert from 'node:assert/strict'
import { X509Certificate } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { DynamicCaFile, mergedCa, staticCa } from '../../../src/server/authentication/dynamic-ca.js'
import { AuthenticationConfigError } from '../../../src/server/authentication/authenticator.js'
import { mergeBundles, parseCaBundle, verifyClientChain } from '../../../src/server/authentication/x509.js'
import { makeCa, makeClientCert } from './helpers.js'

describe('CA files reloaded while running', () => {
  let dir: string
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dynamic-ca-'))
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('takes a changed valid bundle, keeps the last good one on a bad, empty or missing file, and says so', async () => {
    const [caA, caB] = [await makeCa('ca-a'), await makeCa('ca-b')]
    const certB = new X509Certificate((await makeClientCert(caB, 'bob')).cert)
    const file = path.join(dir, 'ca.crt')
    fs.writeFileSync(file, caA.certPem)
    const logs: string[] = []
    const ca = new DynamicCaFile(file, '--client-ca-file', 'client-ca-bundle', { info: (m) => logs.push(`I ${m}`), error: (m) => logs.push(`E ${m}`) })
    let changes = 0
    ca.onChange(() => changes++)
    const first = ca.current()
    assert.throws(() => verifyClientChain([certB], ca.current().certs), /certificate signed by unknown authority/)
    assert.equal(ca.check(), false, 'unchanged')

    fs.writeFileSync(file, caA.certPem + caB.certPem)
    assert.equal(ca.check(), true)
    assert.notEqual(ca.current(), first)
    assert.equal(verifyClientChain([certB], ca.current().certs).length, 2)
    assert.equal(changes, 1)
    assert.match(logs.at(-1)!, new RegExp(`^I "Loaded a new CA Bundle and Verifier" name="client-ca-bundle::${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"$`))

    const good = ca.current()
    fs.writeFileSync(file, '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n')
    assert.equal(ca.check(), false)
    assert.match(logs.at(-1)!, new RegExp(`^E key failed with : error loading CA bundle for "client-ca-bundle::.*ca\\.crt": line 1: the certificate does not parse`))
    fs.writeFileSync(file, '')
    assert.equal(ca.check(), false)
    assert.match(logs.at(-1)!, /^E key failed with : missing content for CA bundle "client-ca-bundle::.*"$/)
    fs.rmSync(file)
    assert.equal(ca.check(), false)
    assert.match(logs.at(-1)!, /no such file or directory/)
    assert.equal(ca.current(), good)
    assert.equal(changes, 1)
  })

  it('a bad file at start-up is an error naming the option and the file', () => {
    const file = path.join(dir, 'bad.crt')
    fs.writeFileSync(file, 'nothing here\n')
    assert.throws(() => new DynamicCaFile(file, '--client-ca-file', 'client-ca-bundle'), (err: Error) => {
      assert.ok(err instanceof AuthenticationConfigError)
      assert.match(err.message, /^--client-ca-file: unable to load client CA file ".*bad\.crt": data does not contain any valid RSA or ECDSA certificates$/)
      return true
    })
  })

  it('polls the file once started', async function () {
    this.timeout(10_000)
    const [caA, caB] = [await makeCa('ca-a'), await makeCa('ca-b')]
    const file = path.join(dir, 'ca.crt')
    fs.writeFileSync(file, caA.certPem)
    const ca = new DynamicCaFile(file, '--client-ca-file', 'client-ca-bundle')
    ca.start(50)
    try {
      const changed = new Promise<void>((resolve) => ca.onChange(resolve))
      fs.writeFileSync(file, caB.certPem)
      await changed
      assert.equal(ca.current().certs[0]!.subject, 'CN=ca-b')
    } finally {
      ca.stop()
    }
  })

  it('merges with fixed authorities, merging again only after a change', async () => {
    const [caA, caB, generated] = [await makeCa('ca-a'), await makeCa('ca-b'), await makeCa('generated')]
    const file = path.join(dir, 'ca.crt')
    fs.writeFileSync(file, caA.certPem)
    const dynamic = new DynamicCaFile(file, '--client-ca-file', 'client-ca-bundle')
    const merged = mergedCa([dynamic, staticCa(parseCaBundle(generated.certPem, 'generated'))], (b) => mergeBundles(b)!)
    const before = merged.current()
    assert.equal(merged.current(), before)
    assert.deepEqual(before.certs.map((c) => c.subject), ['CN=ca-a', 'CN=generated'])
    fs.writeFileSync(file, caB.certPem)
    dynamic.check()
    assert.deepEqual(merged.current().certs.map((c) => c.subject), ['CN=ca-b', 'CN=generated'])
  })
})
