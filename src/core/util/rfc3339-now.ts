/**
 * The current time in whole seconds as RFC 3339 (`2026-11-27T02:30:00Z`), the form of
 * metav1.Time: creationTimestamp and managedFields times. Every create and update asks for it
 * (twice), and it only changes once a second, so the text is kept for the second it names
 * (formatting a Date and trimming its milliseconds cost several µs per call).
 */
let second = Number.NaN
let text = ''

export function rfc3339Now(): string {
  const now = Math.floor(Date.now() / 1000)
  if (now !== second) {
    text = new Date(now * 1000).toISOString().replace('.000Z', 'Z')
    second = now
  }
  return text
}
