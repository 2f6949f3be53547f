/**
 * The etcd client package, loaded on first use. etcd3 brings gRPC and protobufjs with it, a
 * fifth of the server's start-up on a CPU profile, and a server on the embedded store never
 * talks to etcd. It is a CommonJS package, so a synchronous require keeps every caller
 * synchronous (a dynamic import of the etcd store module instead gave the test runner a
 * second copy of the store's error classes).
 */
import { createRequire } from 'node:module'

type Etcd3Module = typeof import('etcd3')

let loaded: Etcd3Module | undefined

export function loadEtcd3(): Etcd3Module {
  loaded ??= createRequire(import.meta.url)('etcd3') as Etcd3Module
  return loaded
}
