// Loads a fast entry of bin/run.js (dist/fast/<name>.cjs) as Node's CommonJS loader would,
// but compiled with V8's code cache, which the build writes next to it (<name>.cjs.cache, from
// a training run, see scripts/bundle-commands.js): compiling the bundle costs more than running
// it. The cache starts with the bundle's size and modification time, so a cache left from
// another build is not used; V8 itself refuses one from another Node version or with other V8
// flags. Either way the bundle is compiled as usual: a cache only ever saves time.
'use strict'
const fs = require('node:fs')
const path = require('node:path')

/**
 * Loads a fast entry as Node's CommonJS loader would, with the code cache. The bundle's
 * dynamic imports go through __fastImport (scripts/bundle-commands.js rewrites them), as code
 * compiled by node:vm may not call import() itself.
 */
function loadFast(file) {
  const vm = require('node:vm')
  const source = fs.readFileSync(file, 'utf8')
  const cacheFile = `${file}.cache`
  const stat = fs.statSync(file)
  const stamp = Buffer.from(`${stat.size}:${stat.mtimeMs}\n`)
  let cachedData
  try {
    const cache = fs.readFileSync(cacheFile)
    if (cache.subarray(0, stamp.length).equals(stamp)) cachedData = cache.subarray(stamp.length)
  } catch {
    // no cache: compile
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __fastImport) {${source}\n})`, { filename: file, cachedData })
  const module = { exports: {} }
  const fastImport = (specifier) => import(specifier)
  script.runInThisContext().call(module.exports, module.exports, require('node:module').createRequire(file), module, file, path.dirname(file), fastImport)
  // The build's training run (scripts/bundle-commands.js) asks for the cache to be written.
  const writeCache = process.env.CLIENT_WRITE_CODE_CACHE === '1' ? () => fs.writeFileSync(cacheFile, Buffer.concat([stamp, script.createCachedData()])) : () => {}
  return { entry: module.exports, writeCache }
}

module.exports = { loadFast }
