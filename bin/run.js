#!/usr/bin/env node
// `#oclif-core` is @oclif/core bundled into one file at build time (scripts/bundle-commands.js).
import { execute } from '#oclif-core'

await execute({ dir: import.meta.url })
