import assert from 'node:assert/strict'
import { joinHostPort, toUnreachable } from '../../../src/core/client/net-errors.js'

/** A got-like failure whose cause is a Node error with the given fields. */
function failure(code: string, fields: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const cause = Object.assign(new Error(String(fields.message ?? code)), { code, ...fields })
  return { code, message: cause.message, cause, ...extra }
}

describe('core/client: network failures in kubectl\'s words', () => {
  it('refused: kubectl\'s own sentence, Go\'s dial text as detail, IPv6 bracketed', () => {
    const v4 = toUnreachable(failure('ECONNREFUSED', { address: '127.0.0.1', port: 6443 }), 'https://localhost:6443/readyz')
    assert.equal(v4.kind, 'refused')
    assert.equal(v4.message, 'The connection to the server localhost:6443 was refused - did you specify the right host or port?')
    assert.equal(v4.detail, 'dial tcp 127.0.0.1:6443: connect: connection refused')
    const v6 = toUnreachable(failure('ECONNREFUSED', { address: '::1', port: 6443 }), 'https://[::1]:6443/readyz')
    assert.equal(v6.detail, 'dial tcp [::1]:6443: connect: connection refused')
    assert.equal(v6.message, 'The connection to the server [::1]:6443 was refused - did you specify the right host or port?')
    assert.equal(joinHostPort('10.0.0.1', 443), '10.0.0.1:443')
  })

  it('dns: no such host, temporary failure', () => {
    const nx = toUnreachable(failure('ENOTFOUND', { hostname: 'api.nowhere.invalid' }), 'https://api.nowhere.invalid:6443/livez')
    assert.equal(nx.kind, 'dns')
    assert.equal(nx.message, 'Unable to connect to the server: dial tcp: lookup api.nowhere.invalid: no such host')
    assert.equal(toUnreachable(failure('EAI_AGAIN'), 'https://x.example/').kind, 'dns')
  })

  it('timeouts by phase', () => {
    const timeout = (event: string, timings: Record<string, number> = {}, reused = false) =>
      toUnreachable({ name: 'TimeoutError', code: 'ETIMEDOUT', message: `Timeout awaiting '${event}'`, event, timings, request: { reusedSocket: reused } }, 'https://10.0.0.1:6443/readyz').message
    assert.equal(timeout('connect'), 'Unable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout')
    assert.equal(timeout('secureConnect'), 'Unable to connect to the server: net/http: TLS handshake timeout')
    assert.equal(timeout('request'), 'Unable to connect to the server: net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)')
    assert.equal(timeout('request', { socket: 1, connect: 2, secureConnect: 3 }), 'Unable to connect to the server: net/http: request canceled (Client.Timeout exceeded while awaiting headers)')
    assert.equal(timeout('request', { socket: 1 }, true), 'Unable to connect to the server: net/http: request canceled (Client.Timeout exceeded while awaiting headers)')
    assert.equal(timeout('request', { socket: 1, connect: 2, secureConnect: 3, response: 4 }), 'Unable to connect to the server: context deadline exceeded (Client.Timeout exceeded while reading body)')
    assert.equal(toUnreachable(failure('ETIMEDOUT', { address: '10.0.0.1', port: 6443 }), 'https://10.0.0.1:6443/').detail, 'dial tcp 10.0.0.1:6443: connect: connection timed out')
  })

  it('certificates: expired, names, legacy common name', () => {
    const url = 'https://api.example.test/'
    assert.equal(toUnreachable(failure('CERT_HAS_EXPIRED'), url).message, 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate has expired or is not yet valid')
    const altname = (host: string, subjectaltname?: string, cn?: string) =>
      toUnreachable(failure('ERR_TLS_CERT_ALTNAME_INVALID', { host, cert: { subjectaltname, subject: { CN: cn } } }), url).detail
    assert.equal(altname('api.example.test', 'DNS:a.example.test, DNS:b.example.test, IP Address:10.0.0.1'), 'tls: failed to verify certificate: x509: certificate is valid for a.example.test, b.example.test, not api.example.test')
    assert.equal(altname('10.0.0.2', 'DNS:a.example.test, IP Address:10.0.0.1'), 'tls: failed to verify certificate: x509: certificate is valid for 10.0.0.1, not 10.0.0.2')
    assert.equal(altname('api.example.test', undefined, 'api.example.test'), 'tls: failed to verify certificate: x509: certificate relies on legacy Common Name field, use SANs instead')
    assert.equal(altname('api.example.test', 'IP Address:10.0.0.1'), 'tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match api.example.test')
    assert.equal(toUnreachable(failure('SELF_SIGNED_CERT_IN_CHAIN'), url).kind, 'tls')
  })

  it('alerts from the server, by code or by alert number', () => {
    assert.equal(toUnreachable(failure('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA'), 'https://x/').detail, 'remote error: tls: unknown certificate authority')
    assert.equal(toUnreachable(failure('EPROTO', { message: 'write EPROTO ...:sslv3 alert bad certificate:...:SSL alert number 42' }), 'https://x/').detail, 'remote error: tls: bad certificate')
  })

  it('other failures keep the Node text and kind other', () => {
    const unreach = toUnreachable(failure('EHOSTUNREACH', { address: '10.9.9.9', port: 443 }), 'https://10.9.9.9/')
    assert.equal(unreach.kind, 'other')
    assert.equal(unreach.detail, 'dial tcp 10.9.9.9:443: connect: no route to host')
    const odd = toUnreachable(failure('ERR_SOMETHING', { message: 'something odd' }), 'https://x/')
    assert.equal(odd.kind, 'other')
    assert.equal(odd.message, 'Unable to connect to the server: something odd')
  })
})
