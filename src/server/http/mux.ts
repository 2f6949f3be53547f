/**
 * The path router at the end of the filter chain: exact paths first, then the longest
 * matching prefix, then 404 — matching on the decoded path without cleaning it, as the
 * reference's mux does, and on the very path request-info resolved (what authorization saw).
 */
import { notFound } from './respond.js'
import type { Handler } from './types.js'

export class Mux {
  private readonly exact = new Map<string, Handler>()
  private readonly prefixes: Array<[string, Handler]> = []
  private readonly unlisted = new Set<string>()

  handle(path: string, handler: Handler): this {
    this.exact.set(path, handler)
    return this
  }

  /** Serves `path` without listing it at `/`, as the reference's UnlistedHandleFunc. */
  handleUnlisted(path: string, handler: Handler): this {
    this.unlisted.add(path)
    return this.handle(path, handler)
  }

  /** Serves every path that starts with `prefix` (and `prefix` itself). */
  handlePrefix(prefix: string, handler: Handler): this {
    this.prefixes.push([prefix, handler])
    this.prefixes.sort((a, b) => b[0].length - a[0].length)
    return this
  }

  paths(): string[] {
    return [...[...this.exact.keys()].filter((p) => !this.unlisted.has(p)), ...this.prefixes.map(([p]) => p)].sort()
  }

  readonly serve: Handler = (req, res, ctx) => {
    const path = ctx.info.path
    const exact = this.exact.get(path)
    if (exact) return exact(req, res, ctx)
    for (const [prefix, handler] of this.prefixes) if (path.startsWith(prefix)) return handler(req, res, ctx)
    notFound(res)
  }
}
