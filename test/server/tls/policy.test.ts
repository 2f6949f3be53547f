import assert from 'node:assert/strict'
import fs from 'node:fs'
import http2 from 'node:http2'
import https from 'node:https'
import path from 'node:path'
import tls from 'node:tls'
import { resolveTlsPolicy, TLS12_SUITES } from '../../../src/server/tls/ciphers.js'
import { TlsConfigError, prepareServing, type ServingOptions, type ServingTls } from '../../../src/server/tls/index.js'
import { CIPHER_SUITES } from '../../../src/core/options/enums.js'
import { baseOptions, handshake, makeCa, makeLeaf, startServer, tmpDir, writePair, x509 } from './helpers.js'

/** Go's default TLS 1.2 suites (crypto/tls defaultCipherSuites) in OpenSSL's names, in Go's order. */
const GO_DEFAULTS_OPENSSL = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-SHA',
  'ECDHE-RSA-AES128-SHA',
  'ECDHE-ECDSA-AES256-SHA',
  'ECDHE-RSA-AES256-SHA',
].join(':')

describe('server/tls: versions, cipher suites and ALPN', function () {
  let root: string
  /**
   * One shared cert dir: an RSA CA and serving pair, generated once (for RSA-only suites, as
   * the reference's self-signed pair), so that the ECDHE_RSA suites can be negotiated; a start
   * with other suites that allow RSA keys reuses it.
   */
  let certDir: string
  const opts = (extra: Partial<ServingOptions>): ServingOptions => ({ ...baseOptions(certDir), ...extra })
  const withServer = async <T>(serving: ServingTls, fn: (s: { port: number; host: string }) => Promise<T>, kind?: 'https' | 'http2'): Promise<T> => {
    const server = await startServer(serving, kind ? { kind } : {})
    try {
      return await fn(server)
    } finally {
      await server.close()
    }
  }

  before(async () => {
    root = tmpDir()
    certDir = path.join(root, 'certs')
    await prepareServing({ ...baseOptions(certDir), cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] })
  })
  after(() => {
    fs.rmSync(root, { recursive: true, force: true })
  })

  describe('--tls-min-version', () => {
    it('VersionTLS13 refuses a client limited to TLS 1.2', async () => {
      const serving = await prepareServing(opts({ minVersion: 'VersionTLS13' }))
      assert.equal(serving.secureOptions.minVersion, 'TLSv1.3')
      await withServer(serving, async (s) => {
        const old = await handshake(s, { maxVersion: 'TLSv1.2' })
        assert.equal(old.ok, false)
        const modern = await handshake(s)
        assert.ok(modern.ok)
        assert.equal(modern.protocol, 'TLSv1.3')
      })
    })

    it('VersionTLS12 lets a TLS 1.2 client connect, and refuses TLS 1.1', async () => {
      const serving = await prepareServing(opts({ minVersion: 'VersionTLS12' }))
      assert.equal(serving.secureOptions.minVersion, 'TLSv1.2')
      await withServer(serving, async (s) => {
        const result = await handshake(s, { maxVersion: 'TLSv1.2' })
        assert.ok(result.ok, !result.ok ? result.error.message : '')
        assert.equal(result.protocol, 'TLSv1.2')
        const legacy = await handshake(s, { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' })
        assert.equal(legacy.ok, false)
      })
    })

    it('VersionTLS10 lowers the security level (and says so) so that TLS 1.0 handshakes work', async () => {
      const serving = await prepareServing(opts({ minVersion: 'VersionTLS10' }))
      assert.equal(serving.secureOptions.minVersion, 'TLSv1')
      assert.equal(serving.secureOptions.ciphers, `${GO_DEFAULTS_OPENSSL}:@SECLEVEL=0`)
      assert.ok(serving.warnings.some((w) => /security level is lowered to 0/.test(w)))
      await withServer(serving, async (s) => {
        const result = await handshake(s, { minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' })
        assert.ok(result.ok, !result.ok ? result.error.message : '')
        assert.equal(result.protocol, 'TLSv1')
      })
    })

    it("serves TLS 1.2 and up with Go's default suites when nothing is set", async () => {
      const serving = await prepareServing(opts({}))
      assert.equal(serving.secureOptions.minVersion, undefined)
      assert.equal(serving.secureOptions.ciphers, GO_DEFAULTS_OPENSSL)
      await withServer(serving, async (s) => {
        const legacy = await handshake(s, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' })
        assert.equal(legacy.ok, false)
        // Go's defaults: ECDHE with AES-GCM, ChaCha20-Poly1305 or AES-CBC-SHA.
        for (const accepted of ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-RSA-CHACHA20-POLY1305', 'ECDHE-RSA-AES128-SHA', 'ECDHE-RSA-AES256-SHA']) {
          const result = await handshake(s, { maxVersion: 'TLSv1.2', ciphers: accepted })
          assert.ok(result.ok, `${accepted}: ${!result.ok ? result.error.message : ''}`)
        }
        // Not theirs: static-RSA key exchange, CBC with SHA-256/384, DHE, 3DES.
        for (const refused of ['AES128-SHA', 'AES128-GCM-SHA256', 'AES256-SHA', 'ECDHE-RSA-AES128-SHA256', 'ECDHE-RSA-AES256-SHA384', 'DHE-RSA-AES128-GCM-SHA256']) {
          const result = await handshake(s, { maxVersion: 'TLSv1.2', ciphers: refused })
          assert.equal(result.ok, false, `${refused} was accepted`)
        }
        const modern = await handshake(s)
        assert.ok(modern.ok)
        assert.equal(modern.protocol, 'TLSv1.3')
      })
    })

    it('rejects an unknown version', async () => {
      await assert.rejects(prepareServing(opts({ minVersion: 'VersionTLS14' })), (err: unknown) =>
        err instanceof TlsConfigError && /^--tls-min-version: unknown tls version "VersionTLS14"/.test(err.message))
    })
  })

  describe('--tls-cipher-suites', () => {
    it('maps Go names to OpenSSL names and negotiates only the listed TLS 1.2 suite', async () => {
      const serving = await prepareServing(opts({ cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] }))
      assert.equal(serving.secureOptions.ciphers, 'ECDHE-RSA-AES128-GCM-SHA256')
      await withServer(serving, async (s) => {
        const result = await handshake(s, { maxVersion: 'TLSv1.2' })
        assert.ok(result.ok, !result.ok ? result.error.message : '')
        assert.equal(result.cipher.name, 'ECDHE-RSA-AES128-GCM-SHA256')
        assert.equal(result.cipher.standardName, 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256')
        const unlisted = await handshake(s, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES256-GCM-SHA384' })
        assert.equal(unlisted.ok, false)
        // Like Go, a list without TLS 1.3 suites leaves TLS 1.3 at its defaults.
        const modern = await handshake(s)
        assert.ok(modern.ok)
        assert.equal(modern.protocol, 'TLSv1.3')
      })
    })

    it('restricts TLS 1.3 to the listed TLS 1.3 suites', async () => {
      const serving = await prepareServing(opts({ cipherSuites: ['TLS_AES_256_GCM_SHA384', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'] }))
      assert.equal(serving.secureOptions.ciphers, 'TLS_AES_256_GCM_SHA384:ECDHE-RSA-AES256-GCM-SHA384')
      await withServer(serving, async (s) => {
        const listed = await handshake(s, { ciphers: 'TLS_AES_256_GCM_SHA384' })
        assert.ok(listed.ok)
        assert.equal(listed.cipher.name, 'TLS_AES_256_GCM_SHA384')
        const other = await handshake(s, { ciphers: 'TLS_AES_128_GCM_SHA256' })
        assert.equal(other.ok, false)
      })
    })

    it('warns that only-TLS-1.3 lists shut out TLS 1.2 clients', async () => {
      const serving = await prepareServing(opts({ cipherSuites: ['TLS_AES_128_GCM_SHA256'] }))
      assert.ok(serving.warnings.some((w) => /only TLS 1.3 suites/.test(w)))
      await withServer(serving, async (s) => {
        assert.equal((await handshake(s, { maxVersion: 'TLSv1.2' })).ok, false)
      })
    })

    it('refuses suites the TLS library cannot honour (RC4, 3DES) at start-up', async () => {
      for (const suite of ['TLS_RSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA']) {
        await assert.rejects(prepareServing(opts({ cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', suite] })), (err: unknown) => {
          assert.ok(err instanceof TlsConfigError)
          assert.match(err.message, new RegExp(`^--tls-cipher-suites: ${suite} cannot be honoured by this server's TLS library \\(OpenSSL ${process.versions.openssl.replace(/\./g, '\\.')}\\)`))
          assert.equal(err.option, '--tls-cipher-suites')
          return true
        })
      }
    })

    it('rejects unknown suite names defensively', async () => {
      await assert.rejects(prepareServing(opts({ cipherSuites: ['TLS_MADE_UP'] })), /Cipher suite TLS_MADE_UP not supported or doesn't exist/)
    })

    it('maps every suite the option catalogue accepts', () => {
      for (const suite of CIPHER_SUITES) {
        assert.ok(suite in TLS12_SUITES || ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'].includes(suite), suite)
      }
      // The older CHACHA20 spellings the validator accepts map like the new ones.
      assert.equal(resolveTlsPolicy(undefined, ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256']).ciphers, 'ECDHE-RSA-CHACHA20-POLY1305')
    })

    it('generates an EC serving key by default and an RSA 2048 one when only ECDHE_RSA suites are listed, keeping the CA', async () => {
      const dir = path.join(root, 'key-type-certs')
      const ec = await prepareServing({ ...baseOptions(dir) })
      assert.equal(x509(ec.secureOptions.cert as string).publicKey.asymmetricKeyType, 'ec')
      await withServer(ec, async (s) => {
        const result = await handshake(s, { maxVersion: 'TLSv1.2', ca: ec.caCertPem, servername: 'localhost', rejectUnauthorized: true })
        assert.ok(result.ok, !result.ok ? result.error.message : '')
        assert.equal(result.cipher.name, 'ECDHE-ECDSA-AES128-GCM-SHA256')
      })
      const rsa = await prepareServing({ ...baseOptions(dir), cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] })
      assert.deepEqual(rsa.created, { ca: false, serving: true })
      assert.equal(rsa.caCertPem, ec.caCertPem)
      const leaf = x509(rsa.secureOptions.cert as string)
      assert.equal(leaf.publicKey.asymmetricKeyType, 'rsa')
      assert.equal(leaf.publicKey.asymmetricKeyDetails?.modulusLength, 2048)
      await withServer(rsa, async (s) => {
        const result = await handshake(s, { maxVersion: 'TLSv1.2', ca: rsa.caCertPem, servername: 'localhost', rejectUnauthorized: true })
        assert.ok(result.ok, !result.ok ? result.error.message : '')
        assert.equal(result.cipher.name, 'ECDHE-RSA-AES128-GCM-SHA256')
      })
      // Back to ECDSA suites: the RSA pair does not fit and is replaced, the CA stays.
      const again = await prepareServing({ ...baseOptions(dir), cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'] })
      assert.deepEqual(again.created, { ca: false, serving: true })
      assert.equal(x509(again.secureOptions.cert as string).publicKey.asymmetricKeyType, 'ec')
      assert.equal(again.caCertPem, ec.caCertPem)
    })

    it('generates an RSA 2048 CA and serving pair, as the reference, when only RSA suites are listed', async () => {
      const dir = path.join(root, 'rsa-certs')
      const rsa = await prepareServing({ ...baseOptions(dir), cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'] })
      assert.deepEqual(rsa.created, { ca: true, serving: true })
      for (const cert of [x509(rsa.caCertPem!), x509(rsa.secureOptions.cert as string)]) {
        assert.equal(cert.publicKey.asymmetricKeyType, 'rsa')
        assert.equal(cert.publicKey.asymmetricKeyDetails?.modulusLength, 2048)
      }
    })

    it('warns when a user certificate cannot use the listed TLS 1.2 suites', async () => {
      const ca = await makeCa()
      const leaf = await makeLeaf(ca, { cn: 'rsa-user', dns: ['localhost'] })
      const { certFile, keyFile } = writePair(root, 'rsa-user', leaf.certPem, leaf.keyPem)
      const serving = await prepareServing({ certFile, keyFile, sniCertKeys: [], bindAddress: '', alpn: [], cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'] })
      assert.equal(serving.warnings.length, 1)
      assert.match(serving.warnings[0]!, /lists TLS 1\.2 suites for ECDSA keys only, but --tls-cert-file .*rsa-user\.crt has a RSA 2048 key/)
    })
  })

  describe('ALPN', () => {
    it('offers h2 and http/1.1 when requested', async () => {
      const serving = await prepareServing(opts({ alpn: ['h2', 'http/1.1'] }))
      assert.deepEqual(serving.secureOptions.ALPNProtocols, ['h2', 'http/1.1'])
      await withServer(serving, async (s) => {
        const h2 = await handshake(s, { ALPNProtocols: ['h2', 'http/1.1'] })
        assert.ok(h2.ok)
        assert.equal(h2.alpn, 'h2')
        const h1 = await handshake(s, { ALPNProtocols: ['http/1.1'] })
        assert.ok(h1.ok)
        assert.equal(h1.alpn, 'http/1.1')
      })
    })

    it('offers only what is requested', async () => {
      const serving = await prepareServing(opts({ alpn: ['h2'] }))
      assert.deepEqual(serving.secureOptions.ALPNProtocols, ['h2'])
      await withServer(serving, async (s) => {
        const h2 = await handshake(s, { ALPNProtocols: ['http/1.1', 'h2'] })
        assert.ok(h2.ok)
        assert.equal(h2.alpn, 'h2')
        // Node answers a client without a common protocol with no_application_protocol.
        assert.equal((await handshake(s, { ALPNProtocols: ['http/1.1'] })).ok, false)
      })
    })

    it('sets no ALPN option when none is requested (the server keeps its own default)', async () => {
      const serving = await prepareServing(opts({}))
      assert.equal('ALPNProtocols' in serving.secureOptions, false)
      await withServer(serving, async (s) => {
        // https.createServer's own default is http/1.1.
        const result = await handshake(s, { ALPNProtocols: ['http/1.1'] })
        assert.ok(result.ok)
        assert.equal(result.alpn, 'http/1.1')
      })
    })

    it('serves HTTP/2 and HTTP/1.1 requests from an http2 secure server, verified against the CA', async () => {
      const serving = await prepareServing(opts({ alpn: ['h2', 'http/1.1'], minVersion: 'VersionTLS12' }))
      await withServer(serving, async (s) => {
        const h2Status = await new Promise<number>((resolve, reject) => {
          const session = http2.connect(`https://127.0.0.1:${s.port}`, { ca: serving.caCertPem, servername: 'localhost' })
          session.on('error', reject)
          const req = session.request({ ':path': '/' })
          req.on('response', (headers) => {
            resolve(Number(headers[':status']))
            session.close()
          })
          req.on('error', reject)
          req.end()
        })
        assert.equal(h2Status, 200)
        const h1 = await new Promise<{ status: number; alpn: string | false }>((resolve, reject) => {
          // ALPNProtocols reaches tls.connect, though @types/node does not list it for https.request.
          const requestOptions: https.RequestOptions & { ALPNProtocols: string[] } = {
            host: '127.0.0.1', servername: 'localhost', port: s.port, path: '/', ca: serving.caCertPem, agent: false, ALPNProtocols: ['http/1.1'],
          }
          const req = https.request(requestOptions, (res) => {
            res.resume()
            resolve({ status: res.statusCode ?? 0, alpn: (res.socket as tls.TLSSocket).alpnProtocol ?? false })
          })
          req.on('error', reject)
          req.end()
        })
        assert.deepEqual(h1, { status: 200, alpn: 'http/1.1' })
      }, 'http2')
    })
  })
})
