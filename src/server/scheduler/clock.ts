/**
 * Time as the scheduler reads it: the controllers' clock (src/server/controllers/clock.ts, a
 * fake one in tests and with `cluster start --clock`) passed in by the controller that runs
 * the scheduler; this room sits below the controllers and only names the shape.
 */
export interface Clock {
  now(): number
}
