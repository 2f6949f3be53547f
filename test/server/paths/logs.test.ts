import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { Mux } from '../../../src/server/http/mux.js'
import { directoryListing, installLogs, logRelativePath, parseRange, sniffContentType } from '../../../src/server/paths/logs.js'
import { skipOrFail } from '../../support/tools.js'
import { send, serve, type TestServer } from './harness.js'

const LOG = 'I0101 00:00:00.000000       1 server.go:1] started\nI0101 00:00:01.000000       1 server.go:2] serving\n'

describe('server paths: logs', () => {
  let base: string
  let root: string
  let server: TestServer
  const get = (path: string, headers?: Record<string, string>, method = 'GET') => send(path, { port: server.port, headers, method })

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'logs-handler-'))
    root = join(base, 'log')
    mkdirSync(join(root, 'pods', 'web'), { recursive: true })
    mkdirSync(join(root, 'site'))
    writeFileSync(join(root, 'kube-apiserver.log'), LOG)
    writeFileSync(join(root, 'kube-apiserver.log.1.gz'), gzipSync(LOG))
    writeFileSync(join(root, 'audit.json'), '{"kind":"Event"}\n')
    writeFileSync(join(root, 'a&b <c>.txt'), 'x')
    writeFileSync(join(root, 'pods', 'web', '0.log'), 'pod log\n')
    writeFileSync(join(root, 'site', 'index.html'), '<html>hi</html>')
    writeFileSync(join(root, '.hidden'), 'dot')
    utimesSync(join(root, 'kube-apiserver.log'), new Date('2024-01-02T03:04:05Z'), new Date('2024-01-02T03:04:05Z'))
    writeFileSync(join(base, 'secret.txt'), 'TOP SECRET\n')
    server = await serve(installLogs(new Mux(), { root }).serve)
  })
  after(async () => {
    await server.close()
    rmSync(base, { recursive: true, force: true })
  })

  it('lists a directory as Go\'s http.FileServer does', async () => {
    const reply = await get('/logs/')
    assert.equal(reply.status, 200)
    assert.equal(reply.headers['content-type'], 'text/html; charset=utf-8')
    assert.equal(
      reply.text,
      '<pre>\n' +
        '<a href=".hidden">.hidden</a>\n' +
        '<a href="a&b%20%3Cc%3E.txt">a&amp;b &lt;c&gt;.txt</a>\n' +
        '<a href="audit.json">audit.json</a>\n' +
        '<a href="kube-apiserver.log">kube-apiserver.log</a>\n' +
        '<a href="kube-apiserver.log.1.gz">kube-apiserver.log.1.gz</a>\n' +
        '<a href="pods/">pods/</a>\n' +
        '<a href="site/">site/</a>\n' +
        '</pre>\n',
    )
    assert.equal((await get('/logs/pods/')).text, '<pre>\n<a href="web/">web/</a>\n</pre>\n')
  })

  it('serves a file with a sniffed content type and its modification time', async () => {
    const reply = await get('/logs/kube-apiserver.log')
    assert.equal(reply.status, 200)
    assert.equal(reply.text, LOG)
    assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8')
    assert.equal(reply.headers['content-length'], String(Buffer.byteLength(LOG)))
    assert.equal(reply.headers['last-modified'], 'Tue, 02 Jan 2024 03:04:05 GMT')
    assert.equal(reply.headers['accept-ranges'], 'bytes')
    assert.equal((await get('/logs/pods/web/0.log')).text, 'pod log\n')
  })

  it('types files by extension first, then by their first bytes', async () => {
    assert.equal((await get('/logs/audit.json')).headers['content-type'], 'application/json')
    const gz = await get('/logs/kube-apiserver.log.1.gz')
    assert.equal(gz.headers['content-type'], 'application/x-gzip')
    assert.deepEqual(gz.body, gzipSync(LOG))
  })

  it('refuses path traversal with 404 and never serves what lies outside', async () => {
    for (const path of [
      '/logs/..%2fsecret.txt',
      '/logs/..%2F..%2F..%2F..%2Fetc%2Fpasswd',
      '/logs/pods/..%2f..%2f..%2fsecret.txt',
      '/logs/%2e%2e%2fsecret.txt',
      '/logs/pods%2f..%2f..%2fsecret.txt',
      '/logs/kube-apiserver.log%00',
    ]) {
      const reply = await get(path)
      assert.equal(reply.status, 404, path)
      assert.equal(reply.text, '404 page not found\n', path)
    }
    assert.equal(logRelativePath('/logs/..%2fsecret.txt'), undefined)
    assert.equal(logRelativePath('/logs/a%2fb'), '/a/b')
  })

  it('redirects a directory without its slash, and the bare /logs', async () => {
    const reply = await get('/logs/pods?x=1')
    assert.equal(reply.status, 301)
    assert.equal(reply.headers.location, 'pods/?x=1')
    const bare = await get('/logs')
    assert.equal(bare.status, 301)
    assert.equal(bare.headers.location, 'logs/')
  })

  it('serves a directory\'s index.html in its place, and redirects the name itself', async () => {
    const reply = await get('/logs/site/')
    assert.equal(reply.text, '<html>hi</html>')
    assert.equal(reply.headers['content-type'], 'text/html; charset=utf-8')
    const direct = await get('/logs/site/index.html')
    assert.equal(direct.status, 301)
    assert.equal(direct.headers.location, './')
  })

  it('answers a missing file with 404', async () => {
    const reply = await get('/logs/nope.log')
    assert.equal(reply.status, 404)
    assert.equal(reply.text, '404 page not found\n')
    assert.equal((await get('/logs/kube-apiserver.log/inside')).status, 404)
    assert.equal((await get(`/logs/${'x'.repeat(300)}`)).text, 'file not found\n')
  })

  it('serves one byte range, and refuses an unsatisfiable one', async () => {
    const part = await get('/logs/kube-apiserver.log', { range: 'bytes=0-4' })
    assert.equal(part.status, 206)
    assert.equal(part.text, LOG.slice(0, 5))
    assert.equal(part.headers['content-range'], `bytes 0-4/${LOG.length}`)
    const tail = await get('/logs/kube-apiserver.log', { range: 'bytes=-8' })
    assert.equal(tail.text, LOG.slice(-8))
    const beyond = await get('/logs/kube-apiserver.log', { range: `bytes=${LOG.length}-` })
    assert.equal(beyond.status, 416)
    assert.equal(beyond.headers['content-range'], `bytes */${LOG.length}`)
  })

  it('answers If-Modified-Since with 304 when the file has not changed', async () => {
    const fresh = await get('/logs/kube-apiserver.log', { 'if-modified-since': 'Tue, 02 Jan 2024 03:04:05 GMT' })
    assert.equal(fresh.status, 304)
    assert.equal(fresh.body.length, 0)
    const stale = await get('/logs/kube-apiserver.log', { 'if-modified-since': 'Tue, 02 Jan 2024 03:04:04 GMT' })
    assert.equal(stale.status, 200)
  })

  it('is read-only: other methods get 405, HEAD gets headers only', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const reply = await get('/logs/kube-apiserver.log', {}, method)
      assert.equal(reply.status, 405, method)
    }
    assert.equal(statSync(join(root, 'kube-apiserver.log')).size, Buffer.byteLength(LOG))
    const head = await get('/logs/kube-apiserver.log', {}, 'HEAD')
    assert.equal(head.status, 200)
    assert.equal(head.headers['content-length'], String(Buffer.byteLength(LOG)))
    assert.equal(head.body.length, 0)
  })

  it('does not open a FIFO (it would hang the read)', async function () {
    const fifo = join(root, 'pipe')
    const made = spawnSync('mkfifo', [fifo], { encoding: 'utf8' })
    // Only a system that cannot make a FIFO may skip (never under CI); any other failure fails.
    if (made.error) {
      if ((made.error as NodeJS.ErrnoException).code !== 'ENOENT') throw made.error
      skipOrFail(this, 'no FIFO support here: the mkfifo program is not installed')
    }
    if (made.status !== 0) {
      if (!/not supported|not permitted/i.test(made.stderr)) assert.fail(`mkfifo failed: ${made.stderr}`)
      skipOrFail(this, `no FIFO support in ${root}: ${made.stderr.trim()}`)
    }
    try {
      const reply = await get('/logs/pipe')
      assert.equal(reply.status, 404)
    } finally {
      rmSync(fifo, { force: true })
    }
  })

  describe('helpers', () => {
    it('sniffs like Go\'s DetectContentType', () => {
      assert.equal(sniffContentType(Buffer.from('plain text\n')), 'text/plain; charset=utf-8')
      assert.equal(sniffContentType(Buffer.from('  <!DOCTYPE html><html>')), 'text/html; charset=utf-8')
      assert.equal(sniffContentType(Buffer.from('<?xml version="1.0"?>')), 'text/xml; charset=utf-8')
      assert.equal(sniffContentType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])), 'image/png')
      assert.equal(sniffContentType(Buffer.from([1, 2, 3])), 'application/octet-stream')
      assert.equal(sniffContentType(Buffer.alloc(0)), 'text/plain; charset=utf-8')
    })

    it('parses a single byte range as Go does', () => {
      assert.deepEqual(parseRange('bytes=2-5', 10), { start: 2, end: 5 })
      assert.deepEqual(parseRange('bytes=2-', 10), { start: 2, end: 9 })
      assert.deepEqual(parseRange('bytes=-3', 10), { start: 7, end: 9 })
      assert.deepEqual(parseRange('bytes=5-100', 10), { start: 5, end: 9 })
      assert.equal(parseRange('bytes=10-', 10), 'no-overlap')
      assert.equal(parseRange('bytes=5-2', 10), 'invalid')
      assert.equal(parseRange('items=1-2', 10), 'invalid')
      assert.equal(parseRange('bytes=0-1,3-4', 10), undefined)
      assert.equal(parseRange(undefined, 10), undefined)
    })

    it('escapes listing links as url.URL{Path: name}.String() does', () => {
      assert.equal(
        directoryListing([{ name: 'a:b', isDirectory: false }, { name: 'q?#', isDirectory: true }, { name: 'é', isDirectory: false }]),
        '<pre>\n<a href="./a:b">a:b</a>\n<a href="q%3F%23/">q?#/</a>\n<a href="%C3%A9">é</a>\n</pre>\n',
      )
    })
  })
})
