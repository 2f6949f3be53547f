import assert from 'node:assert/strict'
import { describeCause } from '../../../src/server/tls/errors.js'
import { canonicalIp, isDns1123Subdomain, isUnspecifiedAddress, nameKey, neededNames } from '../../../src/server/tls/names.js'

describe('server/tls: names', () => {
  it('canonicalizes IP addresses like Go', () => {
    assert.equal(canonicalIp('127.0.0.1'), '127.0.0.1')
    assert.equal(canonicalIp('0:0:0:0:0:0:0:1'), '::1')
    assert.equal(canonicalIp('[2001:DB8::0:1]'), '2001:db8::1')
    assert.equal(canonicalIp('::ffff:192.0.2.1'), '192.0.2.1')
    assert.equal(canonicalIp('fe80::1%eth0'), 'fe80::1')
    assert.equal(canonicalIp('example.com'), undefined)
    assert.equal(canonicalIp('256.0.0.1'), undefined)
  })

  it('knows unspecified addresses and DNS-1123 subdomains', () => {
    assert.equal(isUnspecifiedAddress('0.0.0.0'), true)
    assert.equal(isUnspecifiedAddress('::'), true)
    assert.equal(isUnspecifiedAddress(''), true)
    assert.equal(isUnspecifiedAddress('10.0.0.1'), false)
    assert.equal(isDns1123Subdomain('a.example.com'), true)
    assert.equal(isDns1123Subdomain('A.example.com'), false)
    assert.equal(isDns1123Subdomain('-a.example'), false)
    assert.equal(nameKey('Host.Example.'), 'host.example')
  })

  it('lists the names of the generated serving certificate', () => {
    // The reference's alternates for kube-apiserver: the `kubernetes` service's names and its cluster IP.
    const service = ['kubernetes.default.svc', 'kubernetes.default', 'kubernetes']
    assert.deepEqual(neededNames({ advertiseAddress: '10.1.2.3', bindAddress: '0.0.0.0', hostname: 'Node-1', serviceIp: '10.0.0.1' }), {
      dns: ['localhost', 'node-1', ...service],
      ips: ['10.1.2.3', '127.0.0.1', '::1', '10.0.0.1'],
    })
    assert.deepEqual(neededNames({ bindAddress: '192.0.2.9', hostname: 'localhost' }), {
      dns: ['localhost', ...service],
      ips: ['192.0.2.9', '127.0.0.1', '::1'],
    })
    assert.deepEqual(neededNames({ advertiseAddress: '0:0:0:0:0:0:0:1', bindAddress: '::', hostname: 'bad name' }), {
      dns: ['localhost', ...service],
      ips: ['::1', '127.0.0.1'],
    })
  })

  it('shortens OpenSSL error texts', () => {
    assert.equal(describeCause(new Error('error:0680007B:asn1 encoding routines::header too long')), 'header too long (asn1 encoding routines)')
    assert.equal(describeCause(new Error('plain')), 'plain')
  })
})
