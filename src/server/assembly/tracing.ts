/**
 * Tracing of `--tracing-config-file` (the reference's TracingOptions.ApplyTo): the file read
 * and validated now (a bad one stops the start-up with the reference's text), then the
 * OpenTelemetry provider, imported only here and only then, installed for the spans of
 * src/server/tracing/spans.ts. Without the option nothing is loaded and nothing traced.
 */
import { TracingConfigError, readTracingConfiguration } from '../../core/config-files/tracing-config.js'
import { StartupError } from '../lifecycle/startup-error.js'
import { type Tracing, installTracing } from '../tracing/spans.js'

export async function tracingFromConfig(file: string | undefined): Promise<Tracing | undefined> {
  if (!file) return undefined
  let config
  try {
    config = readTracingConfiguration(file)
  } catch (err) {
    if (err instanceof TracingConfigError) throw new StartupError(err.message, { cause: err })
    throw err
  }
  const { startTracing } = await import('../tracing/provider.js')
  const tracing = startTracing(config)
  installTracing(tracing)
  return tracing
}
