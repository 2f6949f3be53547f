/**
 * Go-compatible value syntax (src/core/options/go-syntax.ts and values.ts): the accepted forms
 * and the exact error texts of Go's strconv, time and encoding/csv and of pflag's typed values.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import {
  checkQuantity,
  formatGoDuration,
  parseGoBool,
  parseGoDuration,
  parseGoFloat,
  parseGoInt,
  readCsvRecord,
} from '../../../src/core/options/go-syntax.js'
import { formatPortRange, mergeValue, parsePortRange, parseValue } from '../../../src/core/options/values.js'

const throwsMessage = (fn: () => unknown, message: string) => assert.throws(fn, (err: Error) => {
  assert.equal(err.message, message)
  return true
})

describe('Go value syntax', () => {
  describe('strconv.ParseBool', () => {
    it('accepts the twelve Go spellings', () => {
      assert.deepEqual(['1', 't', 'T', 'TRUE', 'true', 'True'].map(parseGoBool), [true, true, true, true, true, true])
      assert.deepEqual(['0', 'f', 'F', 'FALSE', 'false', 'False'].map(parseGoBool), [false, false, false, false, false, false])
    })
    it('rejects yes and tRUE with the Go error', () => {
      throwsMessage(() => parseGoBool('yes'), 'strconv.ParseBool: parsing "yes": invalid syntax')
      throwsMessage(() => parseGoBool('tRUE'), 'strconv.ParseBool: parsing "tRUE": invalid syntax')
    })
  })

  describe('strconv.ParseInt / ParseUint with base 0', () => {
    it('detects the base from the prefix', () => {
      assert.deepEqual(['0x1BB', '017', '0o17', '0b101', '-42', '+7', '0x_1F'].map((s) => parseGoInt(s)), [443, 15, 15, 5, -42, 7, 31])
    })
    it('rejects 08, an empty text and an overflow', () => {
      throwsMessage(() => parseGoInt('08'), 'strconv.ParseInt: parsing "08": invalid syntax')
      throwsMessage(() => parseGoInt(''), 'strconv.ParseInt: parsing "": invalid syntax')
      throwsMessage(() => parseGoInt('9223372036854775808'), 'strconv.ParseInt: parsing "9223372036854775808": value out of range')
    })
    it('ParseUint rejects a sign', () => {
      throwsMessage(() => parseGoInt('-1', 'ParseUint'), 'strconv.ParseUint: parsing "-1": invalid syntax')
    })
  })

  describe('strconv.ParseFloat', () => {
    it('accepts decimal, exponent, leading dot, hexadecimal and infinities', () => {
      assert.deepEqual(['0.02', '1e3', '.5', '0x1p-2'].map(parseGoFloat), [0.02, 1000, 0.5, 0.25])
      assert.equal(parseGoFloat('-Inf'), -Infinity)
      assert.equal(parseGoFloat('+inf'), Infinity)
    })
    it('rejects junk and out-of-range values', () => {
      throwsMessage(() => parseGoFloat('1.2.3'), 'strconv.ParseFloat: parsing "1.2.3": invalid syntax')
      throwsMessage(() => parseGoFloat('1e400'), 'strconv.ParseFloat: parsing "1e400": value out of range')
    })
  })

  describe('time.ParseDuration', () => {
    it('reads units, fractions, signs and a bare 0 (milliseconds)', () => {
      assert.deepEqual(
        ['1m30s', '300ms', '-5s', '0', '1.5h', '.5s', '1h2m3s4ms', '10us', '10µs'].map(parseGoDuration),
        [90_000, 300, -5000, 0, 5_400_000, 500, 3_723_004, 0.01, 0.01],
      )
    })
    it('reports a missing unit, an unknown unit and an empty duration as Go does', () => {
      throwsMessage(() => parseGoDuration('10'), 'time: missing unit in duration "10"')
      throwsMessage(() => parseGoDuration('10x'), 'time: unknown unit "x" in duration "10x"')
      throwsMessage(() => parseGoDuration(''), 'time: invalid duration ""')
      throwsMessage(() => parseGoDuration('-'), 'time: invalid duration "-"')
    })
    it('formats as time.Duration.String()', () => {
      assert.deepEqual([0, 500, 1.5, 60_000, 90_000, 3_600_000, 5_400_000, -5000, 0.001].map(formatGoDuration), [
        '0s',
        '500ms',
        '1.5ms',
        '1m0s',
        '1m30s',
        '1h0m0s',
        '1h30m0s',
        '-5s',
        '1µs',
      ])
    })
  })

  describe('encoding/csv (string slices)', () => {
    it('splits on commas, keeps quoted commas and doubled quotes, keeps empty fields', () => {
      assert.deepEqual(readCsvRecord(''), [])
      assert.deepEqual(readCsvRecord('a,b'), ['a', 'b'])
      assert.deepEqual(readCsvRecord('a,'), ['a', ''])
      assert.deepEqual(readCsvRecord('"a,b",c'), ['a,b', 'c'])
      assert.deepEqual(readCsvRecord('"a""b"'), ['a"b'])
    })
    it('reports a bare quote and an unterminated quoted field with 1-based columns', () => {
      throwsMessage(() => readCsvRecord('No"de'), 'parse error on line 1, column 3: bare " in non-quoted-field')
      throwsMessage(() => readCsvRecord('"abc'), 'parse error on line 1, column 5: extraneous or missing " in quoted-field')
    })
  })

  describe('resource quantities', () => {
    it('accepts 64Mi, 1.5G, 100m, 1e3 and 0', () => {
      for (const q of ['64Mi', '1.5G', '100m', '1e3', '0']) assert.doesNotThrow(() => checkQuantity(q), q)
    })
    it('rejects abc and an unknown suffix', () => {
      const message = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
      throwsMessage(() => checkQuantity('abc'), message)
      throwsMessage(() => checkQuantity('1Qi'), message)
    })
  })

  describe('pflag typed values', () => {
    it('port ranges: N-M, N, N+offset and formatting', () => {
      assert.deepEqual(parsePortRange('30000-32767'), { base: 30000, size: 2768 })
      assert.deepEqual(parsePortRange('8080'), { base: 8080, size: 1 })
      assert.deepEqual(parsePortRange('30000+10'), { base: 30000, size: 11 })
      assert.deepEqual(parsePortRange(' 100-200 '), { base: 100, size: 101 })
      assert.equal(formatPortRange({ base: 30000, size: 2768 }), '30000-32767')
      assert.equal(formatPortRange({ base: 80, size: 1 }), '80')
    })
    it('port ranges: the reference error texts', () => {
      throwsMessage(() => parsePortRange('abc'), 'strconv.Atoi: parsing "abc": invalid syntax')
      throwsMessage(() => parsePortRange('1-2+3'), 'unable to parse port range: 1-2+3')
      throwsMessage(() => parsePortRange('70000'), 'the port range cannot be greater than 65535: 70000')
      throwsMessage(() => parsePortRange('32767-30000'), 'end port cannot be less than start port: 32767-30000')
    })
    it('IP addresses: IPv4, IPv6 and empty are accepted; 1.2.3 is not', () => {
      assert.equal(parseValue('ip', '::1'), '::1')
      assert.equal(parseValue('ip', ''), '')
      throwsMessage(() => parseValue('ip', '1.2.3'), 'failed to parse IP: "1.2.3"')
    })
    it('feature gates: split on commas and the first colon, value kept as text', () => {
      assert.deepEqual(parseValue('featureGates', 'A=true, core:B=false,C'), [
        { component: undefined, gate: 'A', value: 'true' },
        { component: 'core', gate: 'B', value: 'false' },
        { component: undefined, gate: 'C', value: undefined },
      ])
    })
    it('versions, configuration maps, named cert keys and mapStringString', () => {
      assert.deepEqual(parseValue('versions', 'core=1.33,1.34'), [
        { component: 'core', version: '1.33', raw: 'core=1.33' },
        { version: '1.34', raw: '1.34' },
      ])
      assert.deepEqual(parseValue('keyValues', 'api/all=false,v1,apps/v1=true'), [
        { key: 'api/all', value: 'false' },
        { key: 'v1' },
        { key: 'apps/v1', value: 'true' },
      ])
      assert.deepEqual(parseValue('namedCertKey', 'a.crt,a.key:example.com, *.example.com'), [{ certFile: 'a.crt', keyFile: 'a.key', names: ['example.com', '*.example.com'] }])
      assert.deepEqual(parseValue('mapStringString', 'iss=https://x=y'), { iss: 'https://x=y' })
    })
    it('lists accumulate, scalars are replaced', () => {
      assert.deepEqual(mergeValue('strings', ['a'], ['b']), ['a', 'b'])
      assert.equal(mergeValue('int', 1, 2), 2)
    })
  })
})
