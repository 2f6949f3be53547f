#!/usr/bin/env node
// Regenerates the README's reference sections from the code: the command reference from the
// oclif manifest (`oclif readme`), the option tables and feature gates from the catalogue.
// Run after `npm run build`: node scripts/update-readme.js
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { readmeSections, replaceSection } from '../dist/core/options/readme-sections.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const readme = `${root}README.md`

let text = readFileSync(readme, 'utf8')
for (const [marker, body] of Object.entries(readmeSections())) text = replaceSection(text, marker, body)
writeFileSync(readme, text)

execFileSync(`${root}node_modules/.bin/oclif`, ['readme', '--no-aliases'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
console.log('README.md updated')
