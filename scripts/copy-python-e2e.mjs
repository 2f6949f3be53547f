#!/usr/bin/env node
// Copies the official Python client's own end-to-end suite (kubernetes/e2e_test/ in
// kubernetes-client/python) into test/fixtures/python/client-e2e/kubernetes/e2e_test/, recording the repository and
// commit in SOURCE. Take the tag of the python3-kubernetes that /usr/bin/python3 imports
// (Debian's 22.6.0: v22.6.0), so that the tests are those written for that client.
// test/server/e2e/python-client-suite.e2e.test.ts runs them against `client cluster start`.
//   node scripts/copy-python-e2e.mjs <path of a kubernetes-client/python clone or bare repository> [commit]
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const [repo, commitArg = 'v22.6.0'] = process.argv.slice(2)
if (!repo) throw new Error('usage: copy-python-e2e.mjs <kubernetes-client/python repository> [commit]')
const git = (...args) => execFileSync('git', ['--git-dir', repo.endsWith('.git') || !repo.includes('/.git') ? repo : join(repo, '.git'), ...args], { encoding: 'utf8' })
const commit = git('rev-parse', `${commitArg}^{commit}`).trim()
const DIR = 'kubernetes/e2e_test'
// Under kubernetes/e2e_test/ as in the repository: its tests open their YAML files by that
// relative path, so they run from test/fixtures/python/client-e2e/.
const out = join(root, 'test/fixtures/python/client-e2e', DIR)
rmSync(out, { recursive: true, force: true })
let copied = 0
for (const path of git('ls-tree', '-r', '--name-only', commit, DIR).split('\n').filter(Boolean)) {
  const target = join(out, path.slice(DIR.length + 1))
  mkdirSync(join(target, '..'), { recursive: true })
  writeFileSync(target, git('show', `${commit}:${path}`))
  copied++
}
writeFileSync(join(out, 'SOURCE'), `https://github.com/kubernetes-client/python\n${commitArg} commit ${commit}\n${DIR}\n`)
console.log(`copied ${copied} files of ${DIR} from ${commit}`)
