// A child process writing `count` values under a prefix with etcd3, `inFlight` at a time, so
// that a bench can measure what receiving the writes' watch events costs its own process.
//   node etcd-putter.js <clientUrl> <prefix> <count> <inFlight> <valueBytes>
import { Etcd3 } from 'etcd3'

const [clientUrl, prefix, count, inFlight, valueBytes] = process.argv.slice(2)
const client = new Etcd3({ hosts: clientUrl })
const value = Buffer.alloc(Number(valueBytes), 'x')
let next = 0
await Promise.all(
  Array.from({ length: Number(inFlight) }, async () => {
    while (next < Number(count)) await client.put(`${prefix}${next++}`).value(value)
  }),
)
client.close()
