/// Told how far a long operation is: `done` units of `total` (rows read, entries converted,
/// requests answered); `total` is 0 when it is not known. The core never draws anything: the
/// command-line tool passes one that redraws a line on a terminal (`ProgressLine`).
///
/// Called from whichever thread does the work (a store's serial executor, a task group), as often
/// as once per unit, so an implementation must be thread-safe and cheap: it should throttle what it
/// does with the numbers, never the caller.
package typealias ProgressHandler = @Sendable (_ done: Int, _ total: Int) -> Void
