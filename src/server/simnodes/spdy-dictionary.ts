/**
 * SPDY/3's zlib dictionary for header blocks (draft-mbelshe-httpbis-spdy-00, section 2.6.10.1;
 * spdystream's headerDictionary): the header names and values most often sent, each with its
 * 32-bit length, then a run of status lines, dates and media types without lengths. Both ends
 * prime their zlib streams with it; a zlib stream names it by its Adler-32, which the client
 * checks.
 */
const WORDS = [
  'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language',
  'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding',
  'content-language', 'content-length', 'content-location', 'content-md5', 'content-range', 'content-type', 'date', 'etag',
  'expect', 'expires', 'from', 'host', 'if-match', 'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since',
  'last-modified', 'location', 'max-forwards', 'pragma', 'proxy-authenticate', 'proxy-authorization', 'range', 'referer',
  'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via', 'warning',
  'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public', 'set-cookie', 'keep-alive',
  'origin',
]

const TAIL =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized' +
  '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,' +
  'publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.'

function build(): Buffer {
  const parts: Buffer[] = []
  for (const word of WORDS) {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(word.length, 0)
    parts.push(length, Buffer.from(word, 'latin1'))
  }
  parts.push(Buffer.from(TAIL, 'latin1'))
  return Buffer.concat(parts)
}

function adler32(data: Buffer): number {
  let a = 1
  let b = 0
  for (const byte of data) {
    a = (a + byte) % 65521
    b = (b + a) % 65521
  }
  return ((b << 16) | a) >>> 0
}

export const SPDY3_DICTIONARY = build()
export const SPDY3_DICTIONARY_ADLER32 = adler32(SPDY3_DICTIONARY)
