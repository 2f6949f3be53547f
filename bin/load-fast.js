// Loads a fast entry of bin/run.js (dist/fast/<name>.cjs) as Node's CommonJS loader would,
// but compiled with V8's code cache, which the build writes next to it (<name>.cjs.cache, from
// a training run, see scripts/bundle-commands.js): compiling the bundle costs more than running
// it. The cache starts with the bundle's size and modification time, so a cache left from
// another build is not used; V8 itself refuses one from another Node version or with other V8
// flags. Either way the bundle is compiled as usual: a cache only ever saves time.
//
// Packages that a bundle only imports dynamically and that most runs never reach (@peculiar/x509 to generate a certificate) are bundles of their own,
// dist/fast/side/<package>.cjs, loaded here on the first import() of the package with their
// own code cache: on this machine reading and compiling a bundle costs in proportion to its
// bytes, used or not.
'use strict'
const fs = require('node:fs')
const path = require('node:path')

// What the build writes at the start of a bundle: the function Node's CommonJS loader would
// wrap it in. A bundle that starts with it is compiled as it is, without a copy of its source
// with the wrapper added (megabytes for the server).
const WRAPPER = '(function (exports, require, module, __filename, __dirname, __fastImport) {'

/** Scripts compiled in this process, for writeCache. */
const compiled = []
/** Side bundles by file: their exports, once loaded. */
const sides = new Map()

/** Compiles and runs one bundle with its code cache; returns its module.exports. */
function runCached(file) {
  const vm = require('node:vm')
  // Read as latin1, which for the build's pure-ASCII bundles (scripts/bundle-commands.js) is
  // the same text: Node copies the bytes as they are, and above about a megabyte (the server's
  // bundle) keeps them outside V8's heap, where UTF-8 is decoded into a heap string.
  let source = fs.readFileSync(file, 'latin1')
  if (!source.startsWith(WRAPPER)) source = `${WRAPPER}${source}\n})`
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
  const script = new vm.Script(source, { filename: file, cachedData })
  compiled.push({ script, cacheFile, stamp })
  const module = { exports: {} }
  const importer = (specifier) => fastImport(file, specifier)
  importer.sync = (specifier) => fastRequire(file, specifier)
  script.runInThisContext().call(module.exports, module.exports, require('node:module').createRequire(file), module, file, path.dirname(file), importer)
  return module.exports
}

/**
 * The side bundle the build made for a specifier (`client-side:<name>` for a module of ours,
 * side/<name>.cjs; a package `@scope/name` is side/scope+name.cjs), or undefined.
 */
function sideFile(from, specifier) {
  if (specifier.startsWith('node:') || specifier.startsWith('.')) return undefined
  const name = specifier.startsWith('client-side:') ? specifier.slice('client-side:'.length) : specifier.replace(/^@/, '').replace(/\//g, '+')
  const side = path.join(path.dirname(from), path.basename(path.dirname(from)) === 'side' ? '' : 'side', `${name}.cjs`)
  return sides.has(side) || fs.existsSync(side) ? side : undefined
}

function loadSide(side) {
  if (!sides.has(side)) sides.set(side, runCached(side))
  return sides.get(side)
}

/** import() for a bundle: its side bundle when the build made one, else Node's import(). */
function fastImport(from, specifier) {
  const side = sideFile(from, specifier)
  if (side) return new Promise((resolve) => resolve(loadSide(side)))
  return import(specifier)
}

/** require() of a package for a bundle (`__fastImport.sync`): its side bundle, else Node's require. */
function fastRequire(from, specifier) {
  const side = sideFile(from, specifier)
  return side ? loadSide(side) : require('node:module').createRequire(from)(specifier)
}

/**
 * Loads a fast entry as Node's CommonJS loader would, with the code cache. The bundle's
 * dynamic imports go through __fastImport (scripts/bundle-commands.js rewrites them), as code
 * compiled by node:vm may not call import() itself.
 */
function loadFast(file) {
  const entry = runCached(file)
  // The build's training run (scripts/bundle-commands.js) asks for the caches to be written: the
  // entry's and those of the side bundles it loaded.
  const writeCache =
    process.env.CLIENT_WRITE_CODE_CACHE === '1'
      ? () => {
          for (const { script, cacheFile, stamp } of compiled) fs.writeFileSync(cacheFile, Buffer.concat([stamp, script.createCachedData()]))
        }
      : () => {}
  return { entry, writeCache }
}

module.exports = { loadFast }
