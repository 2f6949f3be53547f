/**
 * A webhook's client configuration, as the reference's `k8s.io/apiserver/pkg/util/webhook`
 * validation.go: ValidateWebhookURL (over Go's url.Parse, whose split of a URL into scheme,
 * user information, host, query and fragment is reproduced here) and ValidateWebhookService.
 */
import { type ErrorList, type Path, invalid, required } from './field/index.js'
import { isDNS1123Subdomain, isValidPortNum } from './strings.js'

interface GoURL {
  scheme: string
  user?: string
  host: string
  rawQuery: string
  fragment: string
}

/** Go's url.Parse, far enough to tell the parts ValidateWebhookURL checks; an error as Go words it. */
function parseGoURL(raw: string): GoURL | { error: string } {
  const fail = (why: string) => ({ error: `parse ${JSON.stringify(raw)}: ${why}` })
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail('net/url: invalid control character in URL')
  let rest = raw
  let fragment = ''
  const hash = rest.indexOf('#')
  if (hash >= 0) {
    fragment = rest.slice(hash + 1)
    rest = rest.slice(0, hash)
  }
  let scheme = ''
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest)
  if (schemeMatch) {
    scheme = schemeMatch[1]!.toLowerCase()
    rest = rest.slice(schemeMatch[0].length)
  } else if (rest.startsWith(':')) {
    return fail('missing protocol scheme')
  }
  let rawQuery = ''
  const question = rest.indexOf('?')
  if (question >= 0) {
    rawQuery = rest.slice(question + 1)
    rest = rest.slice(0, question)
  }
  let host = ''
  let user: string | undefined
  if (rest.startsWith('//') && (scheme !== '' || !rest.startsWith('///'))) {
    const afterSlashes = rest.slice(2)
    const slash = afterSlashes.indexOf('/')
    let authority = slash < 0 ? afterSlashes : afterSlashes.slice(0, slash)
    const at = authority.lastIndexOf('@')
    if (at >= 0) {
      user = authority.slice(0, at)
      authority = authority.slice(at + 1)
    }
    host = authority
  } else if (scheme === '' && rest.includes(':') && !rest.slice(0, rest.indexOf(':')).includes('/')) {
    return fail('first path segment in URL cannot contain colon')
  }
  return { scheme, user, host, rawQuery, fragment }
}

const FORM = '; desired format: https://host[/path]'

/** ValidateWebhookURL. */
export function validateWebhookURL(fldPath: Path, url: string, forceHttps: boolean): ErrorList {
  const u = parseGoURL(url)
  if ('error' in u) return [required(fldPath, `url must be a valid URL: ${u.error}${FORM}`)]
  const errs: ErrorList = []
  if (forceHttps && u.scheme !== 'https') errs.push(invalid(fldPath, u.scheme, `'https' is the only allowed URL scheme${FORM}`))
  if (u.host.length === 0) errs.push(invalid(fldPath, u.host, `host must be specified${FORM}`))
  if (u.user !== undefined) errs.push(invalid(fldPath, u.user, 'user information is not permitted in the URL'))
  if (u.fragment.length !== 0) errs.push(invalid(fldPath, u.fragment, 'fragments are not permitted in the URL'))
  if (u.rawQuery.length !== 0) errs.push(invalid(fldPath, u.rawQuery, 'query parameters are not permitted in the URL'))
  return errs
}

/** ValidateWebhookService: name and namespace required, a valid port, a path of DNS-subdomain segments. */
export function validateWebhookService(fldPath: Path, namespace: string, name: string, path: string | undefined, port: number): ErrorList {
  const errs: ErrorList = []
  if (name.length === 0) errs.push(required(fldPath.child('name')))
  if (namespace.length === 0) errs.push(required(fldPath.child('namespace')))
  const portErrs = isValidPortNum(port)
  if (portErrs.length > 0) errs.push(invalid(fldPath.child('port'), port, `port is not valid: ${portErrs.join(', ')}`))
  if (path === undefined || path === '/' || path.length === 0) return errs
  if (path === '//') return [...errs, invalid(fldPath.child('path'), path, 'segment[0] may not be empty')]
  if (!path.startsWith('/')) errs.push(invalid(fldPath.child('path'), path, "must start with a '/'"))
  let toCheck = path.slice(1)
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1)
  toCheck.split('/').forEach((step, i) => {
    if (step.length === 0) {
      errs.push(invalid(fldPath.child('path'), path, `segment[${i}] may not be empty`))
      return
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(invalid(fldPath.child('path'), path, `segment[${i}]: ${failure}`))
  })
  return errs
}
