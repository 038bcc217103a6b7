import Foundation

/// The ETA as it is shown: each new estimate is blended into the last one counted down, over a few
/// seconds, so a stage that runs faster or slower than its estimated cost moves the ETA smoothly
/// instead of swinging it: unblended, the console's ETA jumped from seconds to minutes and back
/// within a minute of the demo (`InPlaceProgressTests` feeds it a swinging estimate). Time is the
/// plan's elapsed time without pauses, so a pause in step mode neither counts the ETA down nor up.
/// Shared by every step of a plan, like ``PausedTime``.
final class SteadyEstimate: @unchecked Sendable {
    /// How many seconds a new estimate takes to carry about two thirds of its weight.
    static let settling = 2.0
    private var last: (seconds: Double, at: Double)?
    private let lock = NSLock()

    /// The ETA to show at `elapsed` seconds of the plan, given the newest `estimate` (nil until
    /// one can be made, and nil again never forgets the last: it keeps counting down).
    func smoothed(_ estimate: Double?, elapsed: Double) -> Double? {
        lock.withLock {
            guard let last else {
                if let estimate { self.last = (estimate, elapsed) }
                return estimate
            }
            let passed = max(elapsed - last.at, 0)
            let countedDown = max(last.seconds - passed, 0)
            guard let estimate else { return countedDown }
            let weight = 1 - exp(-passed / Self.settling)
            let value = countedDown + (estimate - countedDown) * weight
            self.last = (value, elapsed)
            return value
        }
    }
}
