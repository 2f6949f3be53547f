/** What `client health watch` needs to draw its live view. */
export {
  HealthWatch,
  HealthWatchFrame,
  HealthWatchView,
  renderHealthWatch,
  useTerminalSize,
  type HealthWatchProps,
  type HealthWatchViewProps,
  type RenderHealthWatchOptions,
  type TerminalSize,
} from './health-watch.js'
export {
  HISTORY_MIN_COLUMNS,
  SINCE_MIN_COLUMNS,
  WORD_MIN_COLUMNS,
  columnsFor,
  formatSince,
  layoutWatch,
  textOf,
  truncate,
  type LayoutOptions,
  type Line,
  type Segment,
  type WatchLayout,
} from './health-watch-layout.js'
