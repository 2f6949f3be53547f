/**
 * The build fields of a version report (the reference's version.Info), shared by the
 * server's /version and the client's --version: this product's build, in Go's terms.
 */
import { arch, platform } from 'node:os'

export interface BuildInfo {
  gitCommit: string
  gitTreeState: string
  buildDate: string
  goVersion: string
  compiler: string
  platform: string
}

const GO_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' }

export function buildInfo(productVersion: string): BuildInfo {
  return {
    gitCommit: `client-${productVersion}`,
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'node',
    platform: `${platform()}/${GO_ARCH[arch()] ?? arch()}`,
  }
}
