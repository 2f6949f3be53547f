/**
 * Emulated and minimum-compatibility versions and feature gates: the reference applies these
 * before anything else is checked (phase P2), and the range checks again in P5.
 */
import { FEATURE_GATES, featureGate } from '../../options/feature-gates.js'
import type { FeatureGateSetting, VersionSetting } from '../../options/types.js'
import { parseGoBool } from '../../options/go-syntax.js'
import { BINARY_VERSION, MIN_EMULATED_MINOR, type ValidationContext } from '../context.js'
import type { Reporter, Rule } from '../rule.js'

const COMPONENT = 'core'
/** The reference's name of the same component, accepted so existing manifests validate. */
const REFERENCE_COMPONENT = 'kube'

interface MajorMinor {
  major: number
  minor: number
}

/** Go's version.ParseMajorMinor-style parsing with the reference's error texts. */
function parseMajorMinorPatch(text: string): { major: number; minor: number; patch?: number } {
  const m = /^v?([0-9]+(?:\.[0-9]+)*)$/.exec(text)
  if (!m) throw new Error(`could not parse ${JSON.stringify(text)} as version`)
  const parts = m[1].split('.')
  if (parts.length < 2) throw new Error(`illegal version string ${JSON.stringify(text)}`)
  for (const part of parts) {
    if (part.length > 1 && part.startsWith('0')) {
      throw new Error(`illegal zero-prefixed version component ${JSON.stringify(part)} in ${JSON.stringify(text)}`)
    }
  }
  if (parts.length > 3) throw new Error(`illegal version string ${JSON.stringify(text)}`)
  return { major: Number(parts[0]), minor: Number(parts[1]), patch: parts[2] === undefined ? undefined : Number(parts[2]) }
}

function readVersions(
  ctx: ValidationContext,
  report: Reporter,
  option: string,
): MajorMinor | undefined {
  const items = ctx.parsed.options.get(option)?.value as VersionSetting[] | undefined
  if (!items) return undefined
  const seen = new Map<string, string>()
  let result: MajorMinor | undefined
  for (const item of items) {
    let component = item.component ?? COMPONENT
    if (component === REFERENCE_COMPONENT) {
      report.notice(`component ${REFERENCE_COMPONENT} in --${option} is the reference's name of ${COMPONENT}; read as ${COMPONENT}`, {
        option: `--${option}`,
        value: item.raw,
      })
      component = COMPONENT
    }
    if (component !== COMPONENT) {
      report.error(`component not registered: ${component}`, { option: `--${option}`, value: item.raw, remedy: `the only component is ${COMPONENT}` })
      continue
    }
    const shown = `${component}=${item.version}`
    const earlier = seen.get(component)
    if (earlier !== undefined) {
      report.error(`duplicate version flag, ${earlier} and ${shown}`, { option: `--${option}`, value: item.raw })
      continue
    }
    seen.set(component, shown)
    try {
      const v = parseMajorMinorPatch(item.version)
      if (v.patch !== undefined) {
        report.error(`patch version not allowed, got: ${shown}`, { option: `--${option}`, value: item.raw, remedy: `give major.minor only, e.g. ${v.major}.${v.minor}` })
        continue
      }
      result = v
    } catch (err) {
      report.error((err as Error).message, { option: `--${option}`, value: item.raw, remedy: 'give a version as major.minor, e.g. 1.34' })
    }
  }
  return result
}

export const versionRules: Rule[] = [
  {
    id: 'VER-1',
    phase: 'versions',
    check(ctx, report) {
      const emulated = readVersions(ctx, report, 'emulated-version')
      const minCompat = readVersions(ctx, report, 'min-compatibility-version')
      if (emulated) {
        if (emulated.major !== BINARY_VERSION.major) ctx.emulatedMinor = -1
        else ctx.emulatedMinor = emulated.minor
      }
      // Without the flag the minimum compatibility version follows the emulated one, one minor
      // behind, never below the floor (the reference's rule; 1.34 with the default emulation).
      ctx.minCompatibilityMinor = minCompat
        ? minCompat.major === BINARY_VERSION.major
          ? minCompat.minor
          : -1
        : Math.max(MIN_EMULATED_MINOR, ctx.emulatedMinor - 1)
    },
  },
  {
    id: 'VER-7',
    phase: 'versions',
    check(ctx, report) {
      for (const gate of FEATURE_GATES) ctx.gates.set(gate.name, gate.default)
      const settings = (ctx.parsed.options.get('feature-gates')?.value as FeatureGateSetting[] | undefined) ?? []
      const option = '--feature-gates'
      const prefixed = settings.filter((s) => s.component !== undefined)
      const plain = settings.filter((s) => s.component === undefined)
      const explicit = new Map<string, boolean>()
      for (const s of prefixed) {
        if (s.component === REFERENCE_COMPONENT) {
          report.notice(`prefix ${REFERENCE_COMPONENT}: in --feature-gates is the reference's name of ${COMPONENT}:; read as ${COMPONENT}:`, {
            option,
            value: `${s.component}:${s.gate}`,
          })
        } else if (s.component !== COMPONENT) {
          report.error(`component not registered: ${s.component}`, { option, value: `${s.component}:${s.gate}`, remedy: `prefix gates with ${COMPONENT}: or nothing` })
        }
      }
      if (prefixed.some((s) => s.component === COMPONENT || s.component === REFERENCE_COMPONENT) && plain.length > 0) {
        report.error(`set ${COMPONENT} feature gates with default empty prefix or ${COMPONENT}: prefix consistently, do not mix use`, {
          option,
          remedy: `write every gate either as Gate=bool or as ${COMPONENT}:Gate=bool`,
        })
      }
      for (const s of settings) {
        if (s.component !== undefined && s.component !== COMPONENT && s.component !== REFERENCE_COMPONENT) continue
        const value = `${s.gate}${s.value === undefined ? '' : `=${s.value}`}`
        if (s.value === undefined) {
          report.error(`missing bool value for ${s.gate}`, { option, value, remedy: `write ${s.gate}=true or ${s.gate}=false` })
          continue
        }
        let enabled: boolean
        try {
          enabled = parseGoBool(s.value)
        } catch (err) {
          report.error(`invalid value of ${s.gate}=${s.value}, err: ${(err as Error).message}`, { option, value })
          continue
        }
        if (!featureGate(s.gate)) {
          report.error(`unrecognized feature gate: ${s.gate}`, { option, value, remedy: 'see the feature gate list in `client server start --help`' })
          continue
        }
        explicit.set(s.gate, enabled)
      }
      // AllAlpha and AllBeta switch every gate of their stage that is not set by name.
      for (const [all, stage] of [['AllAlpha', 'alpha'], ['AllBeta', 'beta']] as const) {
        const value = explicit.get(all)
        if (value === undefined) continue
        for (const gate of FEATURE_GATES) if (gate.stage === stage && !explicit.has(gate.name)) ctx.gates.set(gate.name, value)
      }
      for (const [name, value] of explicit) ctx.gates.set(name, value)
    },
  },
]

/** Range checks of the versions, run with the other validations (P5). */
export const versionRangeRules: Rule[] = [
  {
    id: 'VER-5',
    phase: 'validate',
    check(ctx, report) {
      const max = `${BINARY_VERSION.major}.${BINARY_VERSION.minor}`
      if (ctx.emulatedMinor < MIN_EMULATED_MINOR || ctx.emulatedMinor > BINARY_VERSION.minor) {
        const shown = ctx.text('emulated-version') ?? ''
        const version = shown.includes('=') ? shown.slice(shown.indexOf('=') + 1) : shown
        report.error(`emulation version ${version} is not between [1.${MIN_EMULATED_MINOR}, ${max}.0]`, {
          option: '--emulated-version',
          value: shown,
          remedy: `choose a version from 1.${MIN_EMULATED_MINOR} to ${max}`,
        })
      }
    },
  },
  {
    id: 'VER-6',
    phase: 'validate',
    check(ctx, report) {
      const emulated = ctx.emulatedMinor
      if (emulated < 0) return
      if (ctx.minCompatibilityMinor < MIN_EMULATED_MINOR || ctx.minCompatibilityMinor > emulated) {
        const shown = ctx.text('min-compatibility-version')
        const version = shown ? (shown.includes('=') ? shown.slice(shown.indexOf('=') + 1) : shown) : `1.${ctx.minCompatibilityMinor}`
        report.error(`minCompatibilityVersion version ${version} is not between [1.${MIN_EMULATED_MINOR}, 1.${emulated}]`, {
          option: '--min-compatibility-version',
          value: shown,
          remedy: 'the minimum compatibility version must not be above the emulated version',
        })
      }
    },
  },
  {
    id: 'VER-14',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.gate('UnknownVersionInteroperabilityProxy') && !ctx.gate('StorageVersionAPI')) {
        report.error('UnknownVersionInteroperabilityProxy is enabled, but depends on features that are disabled: [StorageVersionAPI]', {
          option: '--feature-gates',
          remedy: 'add StorageVersionAPI=true to --feature-gates',
        })
      }
    },
  },
]
