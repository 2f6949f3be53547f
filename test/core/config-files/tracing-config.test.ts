/**
 * --tracing-config-file as the reference reads and validates it (apiserver's
 * options/tracing.go ReadTracingConfiguration over the TracingConfiguration kinds of
 * apiserver.config.k8s.io, and component-base/tracing/api/v1 ValidateTracingConfiguration),
 * with its messages and the wrapping of TracingOptions.ApplyTo.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TracingConfigError, readTracingConfiguration, validateTracingConfiguration } from '../../../src/core/config-files/tracing-config.js'

describe('core/config-files: TracingConfiguration', () => {
  let dir: string
  const write = (body: string) => {
    const file = join(dir, 'tracing.yaml')
    writeFileSync(file, body)
    return file
  }
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tracing-config-'))))
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
    it(`apiserver.config.k8s.io/${version}: the endpoint and the sampling rate`, () => {
      assert.deepEqual(readTracingConfiguration(write(`apiVersion: apiserver.config.k8s.io/${version}\nkind: TracingConfiguration\nendpoint: localhost:4317\nsamplingRatePerMillion: 100\n`)), { endpoint: 'localhost:4317', samplingRatePerMillion: 100 })
    })
  }

  it('a group the scheme does not register the kind in is refused', () => {
    assert.throws(
      () => readTracingConfiguration(write('apiVersion: apiserver.k8s.io/v1beta1\nkind: TracingConfiguration\n')),
      (err: Error) => err instanceof TracingConfigError && err.message === 'failed to read tracing config: unable to decode tracing configuration data: no kind "TracingConfiguration" is registered for version "apiserver.k8s.io/v1beta1" in scheme "pkg/runtime/scheme.go:100"',
    )
  })

  it('the decoder is strict: an unknown field is refused', () => {
    assert.throws(
      () => readTracingConfiguration(write('apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRate: 5\n')),
      (err: Error) => err.message === 'failed to read tracing config: unable to decode tracing configuration data: strict decoding error: unknown field "samplingRate"',
    )
  })

  // component-base/tracing/api/v1/config.go's messages.
  const cases: Array<[string, { endpoint?: string; samplingRatePerMillion?: number }, string[]]> = [
    ['nothing set', {}, []],
    ['a negative rate', { samplingRatePerMillion: -10 }, ['samplingRatePerMillion: Invalid value: -10: sampling rate must be positive']],
    ['a rate above one million', { samplingRatePerMillion: 1_000_001 }, ['samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million']],
    ['a dns endpoint without a scheme', { endpoint: 'localhost:4317' }, []],
    ['a unix endpoint', { endpoint: 'unix:///var/run/otel.sock' }, []],
    [
      'an http endpoint',
      { endpoint: 'http://localhost:4317' },
      ['endpoint: Invalid value: "http://localhost:4317": unsupported scheme: http.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md'],
    ],
  ]
  for (const [name, config, errors] of cases) {
    it(`validation: ${name}`, () => assert.deepEqual(validateTracingConfiguration(config), errors))
  }
})
