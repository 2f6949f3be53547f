/**
 * The reference's admission.NewForbidden: a 403 naming the request's resource and the name
 * extractResourceName finds, with the plugin's reason after `is forbidden: `.
 */
import { type ApiError, errors } from '../api/status-errors.js'
import { type AdmissionAttributes, nameForRefusal } from './attributes.js'

export function forbidden(attributes: AdmissionAttributes, why: string): ApiError {
  const { group, resource } = attributes.resource
  return errors.forbidden({ group, resource }, nameForRefusal(attributes), why)
}
