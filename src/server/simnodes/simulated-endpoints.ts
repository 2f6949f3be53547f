/**
 * What answers on a port of a simulated container when no kwok PortForward says otherwise:
 * the well-known images' servers as their official images ship them. Today: nginx on port 80
 * (the official image's default server: its `index.html` at `/`, nginx's 404 and 405 pages,
 * `Server: nginx/<version>`). Any other image or port has nothing listening.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { HttpHandler } from './http-over-stream.js'

/** The nginx version of the official image's `latest` tag the pages name. */
const NGINX_VERSION = '1.29.3'

/** /usr/share/nginx/html/index.html of the official nginx image. */
export const NGINX_INDEX_HTML = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
`

/** nginx's error page (ngx_http_special_response.c: the page, then the tail naming the version). */
function nginxErrorPage(status: string): string {
  return `<html>\r\n<head><title>${status}</title></head>\r\n<body>\r\n<center><h1>${status}</h1></center>\r\n<hr><center>nginx/${NGINX_VERSION}</center>\r\n</body>\r\n</html>\r\n`
}

/** The index page's Last-Modified: the date of the image's html file. */
const INDEX_MODIFIED = new Date(Date.UTC(2025, 9, 7, 17, 4, 7))

function nginx(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Server', `nginx/${NGINX_VERSION}`)
  const path = new URL(req.url ?? '/', 'http://pod').pathname
  if (req.method !== 'GET' && req.method !== 'HEAD') return nginxError(res, 405, '405 Not Allowed')
  if (path !== '/' && path !== '/index.html') return nginxError(res, 404, '404 Not Found')
  const body = Buffer.from(NGINX_INDEX_HTML)
  const etag = `"${Math.floor(INDEX_MODIFIED.getTime() / 1000).toString(16)}-${body.length.toString(16)}"`
  res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': body.length, 'Last-Modified': INDEX_MODIFIED.toUTCString(), ETag: etag, 'Accept-Ranges': 'bytes' })
  res.end(req.method === 'HEAD' ? undefined : body)
}

function nginxError(res: ServerResponse, code: number, status: string): void {
  const body = Buffer.from(nginxErrorPage(status))
  res.writeHead(code, { 'Content-Type': 'text/html', 'Content-Length': body.length })
  res.end(body)
}

/** The repository of an image reference: `nginx`, `docker.io/library/nginx:1.27` and `nginx@sha256:...` are all `nginx`. */
export function imageRepository(image: string): string {
  let name = image.split('@')[0] ?? ''
  const slash = name.lastIndexOf('/')
  const colon = name.lastIndexOf(':')
  if (colon > slash) name = name.slice(0, colon)
  const parts = name.split('/')
  if (parts.length > 1 && (parts[0]!.includes('.') || parts[0]!.includes(':') || parts[0] === 'localhost')) parts.shift()
  if (parts.length === 2 && parts[0] === 'library') parts.shift()
  return parts.join('/')
}

/** The server a container of `image` runs on `port`, if it is a well-known one. */
export function simulatedEndpoint(images: readonly string[], port: number): HttpHandler | undefined {
  if (port === 80 && images.some((image) => imageRepository(image) === 'nginx')) return nginx
  return undefined
}
