/**
 * `client server start`: check the command line as `flags validate` does, refuse to start on
 * errors, name the options whose behaviour is not built yet, start the server and run it
 * until a signal ends it.
 */
import { toText } from '../core/flags/render.js'
import { loadConfigFileParsers, namesConfigFile } from '../core/flags/rules/config-files.js'
import { validateServerCommandLine } from '../core/flags/validate.js'
import { serverConfig } from './config.js'
import { milliValue, parseQuantity } from './api/validation/quantity.js'
import { Logger } from './log/logger.js'
import { StartupError, startServer } from './server.js'
import { TlsConfigError } from './tls/index.js'
import { StoreError } from './store/errors.js'

/** Errors that are the user's to fix: printed as one line, no stack trace. */
function isUserError(err: unknown): err is Error {
  return err instanceof StartupError || err instanceof TlsConfigError || err instanceof StoreError
}

/** A quantity's Value() (rounded up to a whole number), as the reference sizes the info buffer. */
function quantityBytes(text: string | undefined): number {
  const q = text === undefined ? undefined : parseQuantity(text)
  if (!q) return 0
  return Number((milliValue(q) + 999n) / 1000n)
}

/** `server start`, or `cluster start` (the same server with the cluster's options and parts). */
export type ServerCommand = 'server' | 'cluster'

export async function runServer(argv: readonly string[], productVersion: string, command: ServerCommand = 'server'): Promise<number> {
  if (namesConfigFile(argv)) await loadConfigFileParsers()
  const report = validateServerCommandLine(argv, { command })
  if (!report.valid || !report.context) {
    process.stderr.write(toText(report, false))
    // A command line that does not parse gets kubectl's hint too; the report above says why.
    if (report.failedPhase === 'parse' || report.failedPhase === 'arguments') process.stderr.write(`See 'client ${command} start --help' for usage.\n`)
    return 1
  }
  const ctx = report.context
  const config = serverConfig(ctx)
  const log = new Logger({
    verbosity: config.verbosity,
    vmodule: config.vmodule,
    flushFrequencyMs: config.logFlushFrequencyMs,
    splitStream: config.logTextSplitStream,
    infoBufferSize: quantityBytes(config.logTextInfoBufferSize),
  })
  for (const f of report.findings) {
    if (f.severity === 'warning') log.warning(f.message)
    else if (f.severity === 'notice') log.info(f.message)
  }

  let running
  try {
    running = await startServer({
      config,
      log,
      productVersion,
      emulatedMinor: ctx.emulatedMinor,
      minCompatibilityMinor: ctx.minCompatibilityMinor,
    })
  } catch (err) {
    if (!isUserError(err)) throw err
    log.error(`Error: ${err.message}`)
    log.flush()
    return 1
  }

  return new Promise<number>((resolve) => {
    let signalled = false
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        log.error(`received ${signal} again: exiting at once`)
        log.flush()
        process.exit(1)
      }
      signalled = true
      log.info(`received ${signal}: shutting down`)
      running.shutdown().then(
        () => {
          log.info('shutdown complete')
          log.flush()
          resolve(0)
        },
        (err: Error) => {
          log.error(`shutdown failed: ${err.stack ?? err.message}`)
          log.flush()
          resolve(1)
        },
      )
    }
    process.on('SIGTERM', onSignal)
    process.on('SIGINT', onSignal)
  })
}
