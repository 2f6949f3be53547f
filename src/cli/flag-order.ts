/**
 * oclif's default help order (flags with a short name first, then by name), applied to a
 * command's flag declarations. The project sets oclif's `flagSortOrder` to `none` so that
 * `server start --help` keeps kube-apiserver's section order; the other commands keep the
 * alphabetical order (and oclif's column alignment, which assumes it) through this.
 */
import type { Interfaces } from '@oclif/core'

export function alphabetical<T extends Interfaces.FlagInput>(flags: T): T {
  const key = ([name, f]: [string, { char?: string }]) => `${f.char ? `0${f.char}` : '1'} ${name}`
  return Object.fromEntries(Object.entries(flags).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))) as T
}
