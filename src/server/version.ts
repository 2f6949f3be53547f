/** `/version`: the reference version this server behaves as, and the build it is. */
import { type BuildInfo, buildInfo } from '../core/build-info.js'
import { BINARY_VERSION } from '../core/flags/context.js'
import type { Handler } from './http/types.js'

interface VersionInfo extends BuildInfo {
  major: string
  minor: string
  emulationMajor: string
  emulationMinor: string
  minCompatibilityMajor: string
  minCompatibilityMinor: string
  gitVersion: string
}

export function versionInfo(emulatedMinor: number, minCompatibilityMinor: number, productVersion: string): VersionInfo {
  return {
    major: String(BINARY_VERSION.major),
    minor: String(BINARY_VERSION.minor),
    emulationMajor: String(BINARY_VERSION.major),
    emulationMinor: String(emulatedMinor),
    minCompatibilityMajor: String(BINARY_VERSION.major),
    minCompatibilityMinor: String(minCompatibilityMinor),
    gitVersion: `v${BINARY_VERSION.major}.${BINARY_VERSION.minor}.0`,
    ...buildInfo(productVersion),
  }
}

export function versionHandler(info: VersionInfo): Handler {
  const body = `${JSON.stringify(info, null, 2)}\n`
  return (_req, res) => {
    res.setHeader('Content-Type', 'application/json')
    res.statusCode = 200
    res.end(body)
  }
}

