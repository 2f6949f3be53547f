/**
 * The AlwaysPullImages admission plugin (the reference's `plugin/pkg/admission/alwayspullimages`):
 * every container of a pod created or updated (init, regular and ephemeral) and every image
 * volume is set to pull its image Always, so a private image cached on a node serves only
 * those allowed to pull it; validation refuses a pod where one is not. An update that brings
 * no new container image is left alone.
 */
import { isPlainObject } from '../api/registry/object.js'
import type { ApiError } from '../api/status-errors.js'
import { notSupported } from '../api/validation/field/errors.js'
import { type AdmissionAttributes, CREATE, UPDATE } from './attributes.js'
import { forbidden } from './forbidden.js'
import { type MutationInterface, type ValidationInterface, handlesOnly } from './interfaces.js'
import { podContainers } from './pod-containers.js'
import { isPodProper, podOf } from './pod-of.js'
import { plainError } from './plain-error.js'

export const ALWAYS_PULL_IMAGES = 'AlwaysPullImages'

const ALWAYS = 'Always'

export class AlwaysPullImages implements MutationInterface, ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)

  async admit(attributes: AdmissionAttributes): Promise<void> {
    if (shouldIgnore(attributes)) return
    const spec = podOf(attributes).spec
    for (const { container } of podContainers(spec)) container.imagePullPolicy = ALWAYS
    for (const { image } of imageVolumes(spec)) image.pullPolicy = ALWAYS
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (shouldIgnore(attributes)) return
    const spec = podOf(attributes).spec
    const refusals: string[] = []
    const refuse = (field: string, value: unknown) => refusals.push(forbidden(attributes, notSupported(field, value ?? '', [ALWAYS]).toString()).message)
    for (const { container, path } of podContainers(spec)) {
      if (container.imagePullPolicy !== ALWAYS) refuse(`${path}.imagePullPolicy`, container.imagePullPolicy)
    }
    for (const { image, index } of imageVolumes(spec)) {
      if (image.pullPolicy !== ALWAYS) refuse(`spec.volumes[${index}].image.pullPolicy`, image.pullPolicy)
    }
    if (refusals.length > 0) throw aggregate(refusals)
  }
}

/** Subresources and other resources are not this plugin's, nor updates bringing no new image. */
function shouldIgnore(attributes: AdmissionAttributes): boolean {
  if (!isPodProper(attributes)) return true
  return isUpdateWithNoNewImages(attributes)
}

/** An update whose containers name only images the stored pod's containers already name. */
function isUpdateWithNoNewImages(attributes: AdmissionAttributes): boolean {
  if (attributes.operation !== UPDATE || !attributes.object || !attributes.oldObject) return false
  const oldImages = new Set(podContainers(attributes.oldObject.spec).map(({ container }) => container.image))
  return podContainers(attributes.object.spec).every(({ container }) => oldImages.has(container.image))
}

/** The image volumes (KEP-4639) with their index in spec.volumes. */
function imageVolumes(spec: unknown): Array<{ image: Record<string, unknown>; index: number }> {
  if (!isPlainObject(spec) || !Array.isArray(spec.volumes)) return []
  return spec.volumes.flatMap((volume: unknown, index) => (isPlainObject(volume) && isPlainObject(volume.image) ? [{ image: volume.image, index }] : []))
}

/**
 * The refusals as the reference returns them: an aggregate of Forbidden errors, which is no
 * Status, so the client gets a 500 with the aggregate's text (one message alone, several in
 * brackets).
 */
function aggregate(messages: readonly string[]): ApiError {
  const distinct = [...new Set(messages)]
  const message = distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`
  return plainError(message)
}
