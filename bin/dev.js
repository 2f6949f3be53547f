#!/usr/bin/env -S node --import tsx
// Runs the TypeScript sources directly (no build), for development. CommonJS, as bin/run.js
// (bin/package.json); the root is given so that oclif does not take bin/ for the project.
const path = require('node:path')

void (async () => {
  const { execute } = await import('@oclif/core')
  await execute({ development: true, loadOptions: { root: path.join(__dirname, '..') } })
})()
