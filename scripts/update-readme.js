#!/usr/bin/env node
// Regenerates the reference sections of the documentation from the code: the command
// reference (docs/commands.md) from the oclif manifest (`oclif readme`), the option tables and
// feature gates (docs/server-start.md, docs/client-options.md) from the catalogue.
// Run after `npm run build`: node scripts/update-readme.js (or `npm run readme`).
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { docSections, replaceSection } from '../dist/core/options/doc-sections.js'

const root = fileURLToPath(new URL('..', import.meta.url))

for (const [file, sections] of Object.entries(docSections())) {
  let text = readFileSync(`${root}${file}`, 'utf8')
  for (const [marker, body] of Object.entries(sections)) text = replaceSection(text, marker, body, file)
  writeFileSync(`${root}${file}`, text)
}

execFileSync(`${root}node_modules/.bin/oclif`, ['readme', '--no-aliases', '--readme-path', 'docs/commands.md'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true' },
})
console.log(`updated ${[...Object.keys(docSections()), 'docs/commands.md'].join(', ')}`)
