/** Storage and store options (the reference's etcd group of P5 checks, plus the embedded store). */
import { statSync } from 'node:fs'
import { STORAGE_MEDIA_TYPES } from '../../options/enums.js'
import type { Rule } from '../rule.js'

export const storageRules: Rule[] = [
  {
    id: 'ETCD-1',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.list('store-servers').length > 0) return
      if (ctx.forReference) {
        report.error('--store-servers must be specified', { option: '--store-servers', remedy: 'give the store servers as scheme://ip:port' })
      } else {
        report.notice(`no --store-servers: the embedded store is used (data in ${ctx.text('data-dir') ?? 'the per-user data directory'})`, {
          option: '--store-servers',
        })
      }
    },
  },
  {
    id: 'ETCD-2',
    phase: 'validate',
    check(ctx, report) {
      const backend = ctx.text('storage-backend')
      if (backend !== undefined && backend !== 'etcd3') {
        report.error("--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'", {
          option: '--storage-backend',
          value: backend,
          remedy: 'drop --storage-backend or give etcd3',
        })
      }
    },
  },
  {
    id: 'ETCD-3',
    phase: 'validate',
    check(ctx, report) {
      for (const item of ctx.list('store-servers-overrides')) {
        const parts = item.split('#')
        const ok =
          parts.length === 2 &&
          parts[0].split('/').length === 2 &&
          parts[1].split(';').every((server) => server !== '')
        if (!ok) {
          report.error(
            '--store-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated',
            { option: '--store-servers-overrides', value: item, remedy: 'e.g. /events#https://10.0.0.5:2379 (the core group is empty)' },
          )
        }
      }
    },
  },
  {
    id: 'ETCD-4',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.value<boolean>('encryption-provider-config-automatic-reload') && !ctx.text('encryption-provider-config')) {
        report.error('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config', {
          option: '--encryption-provider-config-automatic-reload',
          remedy: 'give --encryption-provider-config, or drop the reload option',
        })
      }
    },
  },
  {
    id: 'ETCD-5',
    phase: 'validate',
    check(ctx, report) {
      const media = ctx.text('storage-media-type')
      if (media !== undefined && !(STORAGE_MEDIA_TYPES as readonly string[]).includes(media)) {
        report.error(`--storage-media-type ${JSON.stringify(media)} invalid, allowed values: ${[...STORAGE_MEDIA_TYPES].sort().join(', ')}`, {
          option: '--storage-media-type',
          value: media,
        })
      }
    },
  },
  {
    id: 'STORE-URL',
    phase: 'validate',
    check(ctx, report) {
      const check = (option: string, server: string) => {
        let url: URL | undefined
        try {
          url = new URL(server)
        } catch {
          url = undefined
        }
        if (!url || !['http:', 'https:', 'unix:', 'unixs:'].includes(url.protocol) || (url.protocol.startsWith('http') && !url.host)) {
          report.error(`${option} item ${JSON.stringify(server)} is not a store URL of the form scheme://ip:port`, {
            option,
            value: server,
            remedy: 'e.g. https://127.0.0.1:2379',
          })
        }
      }
      for (const server of ctx.list('store-servers')) check('--store-servers', server)
      for (const item of ctx.list('store-servers-overrides')) {
        const servers = item.split('#')[1]
        if (servers) for (const server of servers.split(';')) if (server !== '') check('--store-servers-overrides', server)
      }
    },
  },
  {
    id: 'STORE-TLS',
    phase: 'validate',
    check(ctx, report) {
      if (Boolean(ctx.text('store-certfile')) !== Boolean(ctx.text('store-keyfile'))) {
        report.error('--store-certfile and --store-keyfile must be given together', {
          option: ctx.text('store-certfile') ? '--store-keyfile' : '--store-certfile',
          remedy: 'give both the client certificate and its key, or neither',
        })
      }
    },
  },
  {
    id: 'STORE-DATA-DIR',
    phase: 'validate',
    check(ctx, report) {
      const dir = ctx.text('data-dir')
      if (dir === undefined) return
      if (dir === '') {
        report.error('--data-dir must not be empty', { option: '--data-dir', remedy: 'drop it to use the per-user default' })
        return
      }
      if (ctx.list('store-servers').length > 0) {
        report.warning('--data-dir has no effect when --store-servers is given (the store is the remote one)', { option: '--data-dir', value: dir })
      }
      try {
        if (!statSync(dir).isDirectory()) report.error(`--data-dir ${JSON.stringify(dir)} exists and is not a directory`, { option: '--data-dir', value: dir })
      } catch {
        // Absent is fine: the server creates it.
      }
    },
  },
  {
    id: 'STORE-DURATIONS',
    phase: 'validate',
    check(ctx, report) {
      for (const name of [
        'store-compaction-interval',
        'store-count-metric-poll-period',
        'store-db-metric-poll-interval',
        'store-healthcheck-timeout',
        'store-readycheck-timeout',
        'event-ttl',
      ]) {
        const value = ctx.value<number>(name)
        if (value !== undefined && value < 0) {
          report.error(`--${name} can not be a negative value`, { option: `--${name}`, value: ctx.text(name), remedy: 'give zero (where it disables) or a positive duration' })
        }
      }
      const lease = ctx.value<number>('lease-reuse-duration-seconds')
      if (lease !== undefined && lease < 1) {
        report.error(`--lease-reuse-duration-seconds must be a positive number, but got ${lease}`, { option: '--lease-reuse-duration-seconds', value: String(lease) })
      }
      const workers = ctx.value<number>('delete-collection-workers')
      if (workers !== undefined && workers < 1) {
        report.error(`--delete-collection-workers must be at least 1, but got ${workers}`, { option: '--delete-collection-workers', value: String(workers) })
      }
    },
  },
]

/** --watch-cache-sizes is parsed while the reference completes its options (P4). */
export const watchCacheRules: Rule[] = [
  {
    id: 'ETCD-6',
    phase: 'complete',
    check(ctx, report) {
      if (ctx.value<boolean>('watch-cache') === false) return
      const option = '--watch-cache-sizes'
      for (const item of ctx.list('watch-cache-sizes')) {
        const parts = item.split('#')
        if (parts.length !== 2) {
          report.error(`invalid value of watch cache size: ${item}`, { option, value: item, remedy: 'write resource[.group]#size, e.g. pods#0' })
          continue
        }
        if (!/^[+-]?\d+$/.test(parts[1])) {
          report.error(`invalid size of watch cache size: ${item}`, { option, value: item })
          continue
        }
        if (Number(parts[1]) < 0) report.error(`watch cache size cannot be negative: ${item}`, { option, value: item })
      }
    },
  },
]
