/** `/version`: the reference version this server behaves as, and the build it is. */
import { arch, platform } from 'node:os'
import { BINARY_VERSION } from '../core/flags/context.js'
import type { Handler } from './http/types.js'

export interface VersionInfo {
  major: string
  minor: string
  emulationMajor: string
  emulationMinor: string
  minCompatibilityMajor: string
  minCompatibilityMinor: string
  gitVersion: string
  gitCommit: string
  gitTreeState: string
  buildDate: string
  goVersion: string
  compiler: string
  platform: string
}

const GO_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' }

export function versionInfo(emulatedMinor: number, minCompatibilityMinor: number, productVersion: string): VersionInfo {
  return {
    major: String(BINARY_VERSION.major),
    minor: String(BINARY_VERSION.minor),
    emulationMajor: String(BINARY_VERSION.major),
    emulationMinor: String(emulatedMinor),
    minCompatibilityMajor: String(BINARY_VERSION.major),
    minCompatibilityMinor: String(minCompatibilityMinor),
    gitVersion: `v${BINARY_VERSION.major}.${BINARY_VERSION.minor}.0`,
    gitCommit: `client-${productVersion}`,
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'node',
    platform: `${platform()}/${GO_ARCH[arch()] ?? arch()}`,
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

