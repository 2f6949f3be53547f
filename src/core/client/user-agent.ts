/**
 * The User-Agent of client requests: `client/<version> (<os>/<arch>)`, in the shape of
 * kubectl's `kubectl/v1.32.4 (linux/amd64) ...` with Go's names for the OS and architecture.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const GO_OS: Record<string, string> = { win32: 'windows', sunos: 'solaris' }
const GO_ARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' }

export function userAgent(version: string = productVersion()): string {
  const goos = GO_OS[process.platform] ?? process.platform
  const goarch = GO_ARCH[process.arch] ?? process.arch
  return `client/${version} (${goos}/${goarch})`
}

let cached: string | undefined

/**
 * The version in the product's package.json, found by walking up from this module (src/ in
 * development, dist/ when installed). Commands pass oclif's `config.version` instead.
 */
export function productVersion(): string {
  if (cached) return cached
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'client' && pkg.version) return (cached = pkg.version)
    } catch {
      // not here; keep walking up
    }
    const parent = path.dirname(dir)
    if (parent === dir) return (cached = '0.0.0')
    dir = parent
  }
}
