/** Server options: admission (spec 4.5). */
import { ADMISSION_PLUGINS } from '../enums.js'
import type { OptionSpec } from '../types.js'

export const ADMISSION_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'admission-control',
    type: 'strings',
    help: 'Admission plugins to enable, replacing the default-enabled set; the order of names does not matter.',
    section: 'admission',
    deprecated: 'use --enable-admission-plugins or --disable-admission-plugins instead. Will be removed in a future version.',
    constraints: { oneOf: ADMISSION_PLUGINS },
    repeatable: true,
  },
  {
    name: 'enable-admission-plugins',
    type: 'strings',
    help: 'Admission plugins to enable in addition to the default-enabled ones; the order of names does not matter.',
    section: 'admission',
    constraints: { oneOf: ADMISSION_PLUGINS },
    repeatable: true,
  },
  {
    name: 'disable-admission-plugins',
    type: 'strings',
    help: 'Admission plugins to disable although they are enabled by default; the order of names does not matter.',
    section: 'admission',
    constraints: { oneOf: ADMISSION_PLUGINS },
    repeatable: true,
  },
  {
    name: 'admission-control-config-file',
    type: 'string',
    help: 'File with the admission control configuration.',
    section: 'admission',
  },
]
