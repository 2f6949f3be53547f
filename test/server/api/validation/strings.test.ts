/**
 * The string validators against the reference's test expectations (apimachinery
 * pkg/util/validation/validation_test.go, ip_test.go, api/validate/content/kube_test.go).
 */
import assert from 'node:assert/strict'
import {
  isCIdentifier,
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isValidCIDR,
  isValidIP,
  isValidLabelValue,
  isValidPercent,
  isValidPortName,
  isValidPortNum,
} from '../../../../src/server/api/validation/strings.js'

const details = (list: Array<{ detail: string }>) => list.map((e) => e.detail)

describe('validation/strings: names, keys and values', () => {
  it('DNS-1123 labels: length, the pattern, dots named as such', () => {
    assert.deepEqual(isDNS1123Label('a-1'), [])
    assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots'])
    assert.deepEqual(isDNS1123Label('A'), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ])
    assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters'])
  })

  it('DNS-1123 subdomains and DNS-1035 labels', () => {
    assert.deepEqual(isDNS1123Subdomain('a.b-c'), [])
    assert.deepEqual(isDNS1123Subdomain('Web_1'), [
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ])
    assert.deepEqual(isDNS1035Label('1abc'), [
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ])
  })

  it('qualified names (label keys): prefix and name parts', () => {
    assert.deepEqual(isQualifiedName('example.com/MyName'), [])
    assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty'])
    assert.deepEqual(isQualifiedName('a/'), [
      'name part must be non-empty',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ])
    assert.equal(isQualifiedName('a/b/c').length, 1)
    assert.deepEqual(isQualifiedName('x'.repeat(64)), ['name part must be no more than 63 bytes'])
  })

  it('label values, config map keys, environment variable names, C identifiers', () => {
    assert.deepEqual(isValidLabelValue(''), [])
    assert.deepEqual(isValidLabelValue('-a'), [
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ])
    assert.deepEqual(isConfigMapKey('..a'), ["must not start with '..'"])
    assert.deepEqual(isConfigMapKey('a b'), [
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ])
    assert.deepEqual(isEnvVarName('1a'), [
      "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')",
    ])
    assert.deepEqual(isCIdentifier('a-b').length, 1)
  })

  it('ports and percentages', () => {
    assert.deepEqual(isValidPortNum(0), ['must be between 1 and 65535, inclusive'])
    assert.deepEqual(isValidPortName('a--b'), ['must not contain consecutive hyphens'])
    assert.deepEqual(isValidPortName('-12-'), ['must contain at least one letter (a-z)', 'must not begin or end with a hyphen'])
    assert.deepEqual(isValidPortName('abcdefghijklmnop'), ['must be no more than 15 characters'])
    assert.deepEqual(isValidPercent('50'), ["a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"])
  })
})

describe('validation/strings: IP addresses and CIDRs (ip_test.go)', () => {
  const ip = (v: string) => details(isValidIP('f', v))
  it('valid and canonical addresses pass', () => {
    for (const v of ['1.2.3.4', '0.0.0.0', '255.255.255.255', '1234::abcd', '::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']) assert.deepEqual(ip(v), [], v)
  })
  it('non-canonical, leading zeros, IPv4-mapped and junk are refused with the reference messages', () => {
    assert.deepEqual(ip('0:0:0:0:0:0:0:0'), ['must be in canonical form ("::")'])
    assert.deepEqual(ip('0001:002:03:4::'), ['must be in canonical form ("1:2:3:4::")'])
    assert.deepEqual(ip('1234::ABCD'), ['must be in canonical form ("1234::abcd")'])
    assert.deepEqual(ip('1.1.1.01'), ['must not have leading 0s'])
    assert.deepEqual(ip('::ffff:1.1.1.1'), ['must not be an IPv4-mapped IPv6 address'])
    for (const v of ['', 'aaaaaaa', 'myhost.mydomain', '1.2.3.0/24', '1.2.3.400', '-1.0.0.0', '2001:db8::10005', '1.2.3.4:80', '[2001:db8::1]', '1234::abcd%eth0', '169.254.0.0%eth0']) {
      assert.deepEqual(ip(v), ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'], v)
    }
  })
  it('CIDRs: valid, bits beyond the prefix, non-canonical', () => {
    for (const v of ['1.0.0.0/8', '0.0.0.0/0', '1.1.1.1/32', '2001:4860:4860::/48', '::/0']) assert.deepEqual(details(isValidCIDR('f', v)), [], v)
    assert.deepEqual(details(isValidCIDR('f', '1.2.3.4/24')), ['must not have bits set beyond the prefix length'])
    assert.deepEqual(details(isValidCIDR('f', '1.2.3.0/024')), ['must not have leading 0s in IP or prefix length'])
    assert.deepEqual(details(isValidCIDR('f', '1.2.3.0')), ['must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'])
    assert.deepEqual(details(isValidCIDR('f', '2001:DB8::/64')), ['must be in canonical form ("2001:db8::/64")'])
  })
})
