/**
 * The choice of a leader among LeaseCandidates, with the cases of the reference's
 * pkg/controlplane/controller/leaderelection/election_test.go, and the identity's encoding
 * (RFC 4648 base32 test vectors).
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { apiserverId, base32NoPadding, peerAddress } from '../../../src/server/peers/apiserver-id.js'
import { compareCandidates, pickBestLeaderOldestEmulationVersion, pickBestStrategy } from '../../../src/server/peers/election.js'

const candidate = (name: string, spec: Record<string, string>, createdAgoMs = 0): KubeObject => ({
  metadata: { name, namespace: 'default', creationTimestamp: new Date(Date.now() - createdAgoMs).toISOString() },
  spec,
})

describe('peers: coordinated leader election choice (election.go)', () => {
  describe('pickBestLeaderOldestEmulationVersion', () => {
    it('empty: none', () => assert.equal(pickBestLeaderOldestEmulationVersion([]), undefined))
    it('single candidate', () => {
      assert.equal(pickBestLeaderOldestEmulationVersion([candidate('candidate1', { emulationVersion: '0.1.0', binaryVersion: '0.1.0' })])?.metadata.name, 'candidate1')
    })
    it('different emulation versions: the oldest', () => {
      const got = pickBestLeaderOldestEmulationVersion([
        candidate('candidate1', { emulationVersion: '0.1.0', binaryVersion: '0.1.0' }, 3_600_000),
        candidate('candidate2', { emulationVersion: '0.2.0', binaryVersion: '0.2.0' }),
      ])
      assert.equal(got?.metadata.name, 'candidate1')
    })
    it('same emulation versions, different binary versions: the lowest binary version', () => {
      const got = pickBestLeaderOldestEmulationVersion([
        candidate('candidate1', { emulationVersion: '0.1.0', binaryVersion: '0.1.0' }, 3_600_000),
        candidate('candidate2', { emulationVersion: '0.1.0', binaryVersion: '0.2.0' }),
      ])
      assert.equal(got?.metadata.name, 'candidate1')
    })
    it('same versions, different creation timestamps: the oldest', () => {
      const got = pickBestLeaderOldestEmulationVersion([
        candidate('candidate2', { emulationVersion: '0.1.0', binaryVersion: '0.1.0' }),
        candidate('candidate1', { emulationVersion: '0.1.0', binaryVersion: '0.1.0' }, 3_600_000),
      ])
      assert.equal(got?.metadata.name, 'candidate1')
    })
    it('a candidate with an invalid emulation or binary version is not eligible', () => {
      assert.equal(pickBestLeaderOldestEmulationVersion([candidate('c', { emulationVersion: 'invalid', binaryVersion: '0.1.0' })]), undefined)
      assert.equal(pickBestLeaderOldestEmulationVersion([candidate('c', { emulationVersion: '0.1.0', binaryVersion: 'invalid' })]), undefined)
    })
  })

  describe('compare (TestCompare)', () => {
    const cases: Array<[string, Record<string, string>, Record<string, string>, number]> = [
      ['no lhs version', {}, { emulationVersion: '1.20.0', binaryVersion: '1.21.0' }, -1],
      ['no rhs version', { emulationVersion: '1.20.0', binaryVersion: '1.21.0' }, {}, 1],
      ['invalid lhs version', { emulationVersion: 'xyz', binaryVersion: 'xyz' }, { emulationVersion: '1.20.0', binaryVersion: '1.21.0' }, -1],
      ['invalid rhs version', { emulationVersion: '1.20.0', binaryVersion: '1.21.0' }, { emulationVersion: 'xyz', binaryVersion: 'xyz' }, 1],
      ['lhs less than rhs', { emulationVersion: '1.19.0', binaryVersion: '1.20.0' }, { emulationVersion: '1.20.0', binaryVersion: '1.20.0' }, -1],
      ['rhs less than lhs', { emulationVersion: '1.20.0', binaryVersion: '1.20.0' }, { emulationVersion: '1.19.0', binaryVersion: '1.20.0' }, 1],
      ['lhs less than rhs, lexographical order check', { emulationVersion: '1.2.0', binaryVersion: '1.20.0' }, { emulationVersion: '1.19.0', binaryVersion: '1.20.0' }, -1],
    ]
    for (const [name, lhs, rhs, want] of cases) {
      it(name, () => assert.equal(Math.sign(compareCandidates(candidate('l', lhs), candidate('r', rhs))), want))
    }
    it('identical versions earlier timestamp', () => {
      const versions = { emulationVersion: '1.20.0', binaryVersion: '1.21.0' }
      assert.equal(compareCandidates(candidate('l', versions, 0), candidate('r', versions, 1000)), 1)
    })
  })

  describe('pickBestStrategy (TestPickBestStrategy)', () => {
    it('single candidate, single preferred strategy', () => {
      assert.equal(pickBestStrategy([candidate('candidate1', { leaseName: 'component-A', strategy: 'OldestEmulationVersion' })]), 'OldestEmulationVersion')
    })
    it('multiple candidates, different preferred strategies should fail', () => {
      assert.throws(() =>
        pickBestStrategy([
          candidate('candidate1', { leaseName: 'component-A', strategy: 'OldestEmulationVersion' }),
          candidate('candidate2', { leaseName: 'component-A', strategy: 'foo.com/bar' }),
        ]),
      )
    })
    it('different strategies at different binary versions: the highest binary version decides, in any order', () => {
      const c1 = candidate('candidate1', { leaseName: 'component-A', binaryVersion: '1.32.0', strategy: 'OldestEmulationVersion' })
      const c2 = candidate('candidate2', { leaseName: 'component-A', binaryVersion: '1.31.0', strategy: 'foo.com/bar' })
      assert.equal(pickBestStrategy([c1, c2]), 'OldestEmulationVersion')
      assert.equal(pickBestStrategy([c2, c1]), 'OldestEmulationVersion')
    })
  })
})

describe('peers: the server identity', () => {
  it('base32 without padding: the RFC 4648 test vectors', () => {
    const vectors: Array<[string, string]> = [['', ''], ['f', 'MY'], ['fo', 'MZXQ'], ['foo', 'MZXW6'], ['foob', 'MZXW6YQ'], ['fooba', 'MZXW6YTB'], ['foobar', 'MZXW6YTBOI']]
    for (const [text, encoded] of vectors) assert.equal(base32NoPadding(Buffer.from(text)), encoded)
  })

  it('apiserver-<26 lower-case base32 characters>, the same for one host name and different for another', () => {
    assert.match(apiserverId('host-a'), /^apiserver-[a-z2-7]{26}$/)
    assert.equal(apiserverId('host-a'), apiserverId('host-a'))
    assert.notEqual(apiserverId('host-a'), apiserverId('host-b'))
  })

  it('the peer address: the advertised peer IP and port when both are given, else the advertise address and secure port', () => {
    assert.equal(peerAddress({ peerAdvertiseIp: '10.0.0.5', peerAdvertisePort: '7443', advertiseAddress: '10.0.0.1', securePort: 6443 }), '10.0.0.5:7443')
    assert.equal(peerAddress({ peerAdvertiseIp: '10.0.0.5', advertiseAddress: '10.0.0.1', securePort: 6443 }), '10.0.0.1:6443')
    assert.equal(peerAddress({ advertiseAddress: 'fd00::1', securePort: 6443 }), '[fd00::1]:6443')
  })
})
