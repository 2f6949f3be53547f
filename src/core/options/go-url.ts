/**
 * The parts of Go's url.Parse that flag checks depend on, with its error texts: a scheme is
 * optional (`example.com/x` parses, as a path), and an authority's port must be digits.
 */
export interface GoUrl {
  scheme: string
  host: string
  path: string
}

class GoUrlError extends Error {}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/

export function goParseUrl(raw: string): GoUrl {
  const fail = (cause: string) => new GoUrlError(`parse ${JSON.stringify(raw)}: ${cause}`)
  if (/[\x00-\x1f\x7f]/.test(raw)) throw fail('net/url: invalid control character in URL')
  let rest = raw.replace(/#.*$/, '')
  let scheme = ''
  const m = SCHEME.exec(rest)
  if (m) {
    scheme = m[1].toLowerCase()
    rest = rest.slice(m[0].length)
  } else if (rest.startsWith(':')) {
    throw fail('missing protocol scheme')
  }
  rest = rest.replace(/\?.*$/, '')
  let host = ''
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/)
    const authority = end === -1 ? rest.slice(2) : rest.slice(2, 2 + end)
    rest = end === -1 ? '' : rest.slice(2 + end)
    host = authority.includes('@') ? authority.slice(authority.lastIndexOf('@') + 1) : authority
    if (host.startsWith('[')) {
      const close = host.indexOf(']')
      if (close === -1) throw fail('missing \']\' in host')
      const port = host.slice(close + 1)
      if (port !== '' && !/^:\d*$/.test(port)) throw fail(`invalid port ${JSON.stringify(port)} after host`)
    } else {
      const colon = host.lastIndexOf(':')
      if (colon !== -1) {
        const port = host.slice(colon)
        if (!/^:\d*$/.test(port)) throw fail(`invalid port ${JSON.stringify(port)} after host`)
      }
    }
  } else if (scheme === '' && rest.split('/')[0].includes(':')) {
    throw fail('first path segment in URL cannot contain colon')
  }
  return { scheme, host, path: rest }
}
