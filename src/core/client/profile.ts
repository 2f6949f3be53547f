/**
 * `--profile` / `--profile-output` (kubectl's profiling flags) for a Node client: `cpu`
 * records a V8 CPU profile through `node:inspector` from the start of the command to its
 * end and writes it as a `.cpuprofile` JSON document; `heap` writes a V8 heap snapshot
 * (`.heapsnapshot` JSON) taken when the command ends. Both formats are V8's (open them in
 * Chrome DevTools or VS Code), not pprof's, whatever the file is called. Go's other profiles
 * (goroutine, threadcreate, block, mutex, trace) have no Node counterpart and are refused.
 */
import fs from 'node:fs'
import type { Session } from 'node:inspector'

export const SUPPORTED_PROFILES = ['none', 'cpu', 'heap'] as const

export interface Profiler {
  /** Writes the profile to the output file. Throws with the message to print. */
  stop(): Promise<void>
}

/** Checks the profile name; the text of the error for one this client cannot record. */
export function profileProblem(name: string): string | undefined {
  if ((SUPPORTED_PROFILES as readonly string[]).includes(name)) return undefined
  if (['goroutine', 'threadcreate', 'block', 'mutex', 'trace'].includes(name)) {
    return `profile ${JSON.stringify(name)} is not available in this client (only none, cpu and heap, recorded in V8's formats)`
  }
  return `unknown profile ${JSON.stringify(name)}: one of none, cpu, heap`
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => {
    session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T)))
  })
}

/** Starts profiling; `none` gives a profiler that writes nothing. */
export async function startProfile(name: string, output: string): Promise<Profiler> {
  const problem = profileProblem(name)
  if (problem) throw new Error(problem)
  if (name === 'none') return { stop: async () => {} }
  // node:inspector is loaded only when a profile is asked for (it brings worker_threads).
  const { Session } = await import('node:inspector')
  const session = new Session()
  session.connect()
  if (name === 'cpu') {
    await post(session, 'Profiler.enable')
    await post(session, 'Profiler.start')
    return {
      stop: async () => {
        try {
          const { profile } = await post<{ profile: unknown }>(session, 'Profiler.stop')
          writeProfile(output, JSON.stringify(profile))
        } finally {
          session.disconnect()
        }
      },
    }
  }
  return {
    stop: async () => {
      const chunks: string[] = []
      const onChunk = (m: { params: { chunk: string } }) => chunks.push(m.params.chunk)
      session.on('HeapProfiler.addHeapSnapshotChunk', onChunk)
      try {
        await post(session, 'HeapProfiler.takeHeapSnapshot', { reportProgress: false })
        writeProfile(output, chunks.join(''))
      } finally {
        session.removeListener('HeapProfiler.addHeapSnapshotChunk', onChunk)
        session.disconnect()
      }
    },
  }
}

function writeProfile(file: string, text: string): void {
  try {
    fs.writeFileSync(file, text)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    throw new Error(`could not write profile ${JSON.stringify(file)}: ${e.code ?? e.message}`)
  }
}
