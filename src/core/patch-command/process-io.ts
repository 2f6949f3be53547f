/**
 * The I/O of the commands that read sources as `patch -f` does (patch, auth can-i): the
 * process's standard output and error, stdin read once, URLs fetched with GET.
 */
import { directWriter } from '../util/direct-output.js'
import type { PatchIO } from './types.js'

/** The default I/O: the process's standard output and error, stdin read once, URLs fetched with GET. */
export function processIO(): PatchIO {
  let stdin: Promise<string> | undefined
  return {
    cwd: process.cwd(),
    out: directWriter(1),
    err: directWriter(2),
    readStdin: () =>
      (stdin ??= new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = []
        process.stdin.on('data', (c: Buffer) => chunks.push(c))
        process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
        process.stdin.on('error', reject)
      })),
    fetchUrl: async (url) => {
      let res: Response
      try {
        res = await fetch(url)
      } catch (err) {
        throw new Error(`Get ${JSON.stringify(url)}: ${((err as Error).cause as Error | undefined)?.message ?? (err as Error).message}`)
      }
      if (res.status !== 200) {
        throw new Error(`unable to read URL ${JSON.stringify(url)}, server reported ${res.status} ${res.statusText}, status code=${res.status}`)
      }
      return await res.text()
    },
  }
}
