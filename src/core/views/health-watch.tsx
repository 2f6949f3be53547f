/**
 * The live terminal view of `client health watch` (Ink). It reads the watch state from a
 * store (the one `runWatch` returns) and changes it on keys:
 *   q quit · v (or Tab) next endpoint · e exclude / re-include the selected check ·
 *   ↑/↓ or k/j select · PgUp/PgDn · Home/End.
 * Layout decisions (columns at each width, scrolling) are in ./health-watch-layout.ts.
 */
import { Box, type Instance, type Key, type RenderOptions, Text, render, useApp, useInput, useStdin, useStdout } from 'ink'
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react'

import type { HealthEndpoint } from '../health/report.js'
import type { WatchStore } from '../health/watch-loop.js'
import { type WatchState, endpointState, moveSelection, switchEndpoint, toggleExclude } from '../health/watch-model.js'
import { type Line, type WatchLayout, layoutWatch } from './health-watch-layout.js'

export interface TerminalSize {
  columns: number
  /** Undefined when the output has no height (not a terminal). */
  rows?: number
}

/** The size of Ink's stdout, updated when the terminal is resized. Falls back to 80 columns. */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout()
  const [size, setSize] = useState(() => sizeOf(stdout))
  useEffect(() => {
    const resized = () => {
      const next = sizeOf(stdout)
      setSize((size) => (size.columns === next.columns && size.rows === next.rows ? size : next))
    }
    resized()
    stdout.on('resize', resized)
    return () => {
      stdout.off('resize', resized)
    }
  }, [stdout])
  return size
}

function sizeOf(stdout: NodeJS.WriteStream): TerminalSize {
  return { columns: stdout.columns || 80, rows: stdout.rows || undefined }
}

/** Renders a computed layout: header lines, then the rows. */
export function HealthWatchFrame({ layout }: { layout: WatchLayout }) {
  return (
    <Box flexDirection="column">
      {[...layout.header, ...layout.body].map((line, i) => (
        <LineView key={i} line={line} />
      ))}
    </Box>
  )
}

function LineView({ line }: { line: Line }) {
  return (
    <Text wrap="truncate-end">
      {line.map((segment, i) => (
        <Text
          key={i}
          color={segment.color}
          bold={segment.bold}
          dimColor={segment.dim}
          inverse={segment.inverse}
          underline={segment.underline}
        >
          {segment.text}
        </Text>
      ))}
    </Text>
  )
}

export interface HealthWatchViewProps {
  state: WatchState
  server: string
  version?: string
  /** Override the terminal's size (defaults: Ink's stdout). */
  columns?: number
  rows?: number
  offset?: number
}

/** A still picture of a state (no keys): for tests and for callers that drive rendering themselves. */
export function HealthWatchView(props: HealthWatchViewProps) {
  const size = useTerminalSize()
  const layout = layoutWatch(props.state, {
    server: props.server,
    version: props.version,
    columns: props.columns ?? size.columns,
    rows: props.rows ?? size.rows,
    offset: props.offset,
  })
  return <HealthWatchFrame layout={layout} />
}

export interface HealthWatchProps {
  /** The server's URL, shown in the header. */
  server: string
  /** The server's version (e.g. `v1.31.2`), when known. */
  version?: string
  /** Where the state lives: `runWatch`'s handle (or `createWatchStore` in tests). */
  store: WatchStore
  /** Called on `q`, before the app exits (stop the loop here). */
  onQuit?: () => void
  /** Called after `e` changed the excludes of an endpoint. */
  onExcludeChange?: (endpoint: HealthEndpoint, excludes: readonly string[]) => void
  /** Override the terminal's size (defaults: Ink's stdout, following resizes). */
  columns?: number
  rows?: number
}

/** The interactive view. */
export function HealthWatch(props: HealthWatchProps) {
  const { store, onQuit, onExcludeChange } = props
  const subscribe = useCallback((listener: () => void) => store.subscribe(listener), [store])
  const state = useSyncExternalStore(subscribe, () => store.getState())
  const size = useTerminalSize()
  const { exit } = useApp()
  const { isRawModeSupported } = useStdin()
  const offset = useRef(0)
  const layout = layoutWatch(state, {
    server: props.server,
    version: props.version,
    columns: props.columns ?? size.columns,
    rows: props.rows ?? size.rows,
    offset: offset.current,
  })
  useEffect(() => {
    offset.current = layout.offset
  })

  /** Handles one key; false when the app exits. */
  const act = (input: string, key: Key): boolean => {
    if (input === 'q' || input === 'Q') {
      onQuit?.()
      exit()
      return false
    }
    if (input === 'v' || input === 'V' || key.tab) {
      store.update((s) => switchEndpoint(s))
    } else if (input === 'e' || input === 'E') {
      const before = store.getState()
      store.update(toggleExclude)
      const after = store.getState()
      const excludes = endpointState(after, after.active).excludes
      if (excludes !== endpointState(before, after.active).excludes) onExcludeChange?.(after.active, excludes)
    } else {
      const delta = selectionDelta(input, key, Math.max(1, layout.visibleRows - 1))
      if (delta !== 0) store.update((s) => moveSelection(s, delta))
    }
    return true
  }

  useInput(
    (input, key) => {
      if (key.ctrl || key.meta) return
      // Keys typed faster than a read arrive together ("jj"): each counts.
      for (const char of input.length > 1 ? [...input] : [input]) {
        if (!act(char, key)) return
      }
    },
    { isActive: isRawModeSupported },
  )

  return <HealthWatchFrame layout={layout} />
}

/** How far a key moves the selection (0: not a selection key). */
function selectionDelta(input: string, key: Key, page: number): number {
  if (key.upArrow || input === 'k') return -1
  if (key.downArrow || input === 'j') return 1
  if (key.pageUp) return -page
  if (key.pageDown) return page
  if (key.home) return -Infinity
  if (key.end) return Infinity
  return 0
}

export interface RenderHealthWatchOptions extends HealthWatchProps {
  /** Ink's render options (streams, Ctrl+C handling); defaults are Ink's (process streams). */
  ink?: RenderOptions
}

/**
 * Mounts the interactive view. Wait with `instance.waitUntilExit()`; it resolves on `q`
 * (after `onQuit`) and on Ctrl+C (Ink's default), so stop the loop after it in any case.
 */
export function renderHealthWatch(options: RenderHealthWatchOptions): Instance {
  const { ink, ...props } = options
  return render(<HealthWatch {...props} />, ink)
}
