/** The reference server's `/apis` group order, from `test/fixtures/discovery/group-order.json`. */
import { readFileSync } from 'node:fs'

const fixture = JSON.parse(readFileSync(new URL('../fixtures/discovery/group-order.json', import.meta.url), 'utf8')) as { groups: string[] }

export const REFERENCE_GROUP_ORDER: readonly string[] = fixture.groups
