import Foundation

/// The snapshot before the step running now; checks each inferred step as it completes, and
/// stops the plan (rolled back) at the first difference: `check-history` and the store-file
/// fuzzer run every plan through it. Steps complete one at a time on the
/// runner's thread; the lock only makes that explicit.
final class InferredStepRecorder: @unchecked Sendable {
    private var before: ObjectSnapshot
    private let lock = NSLock()

    init(before: ObjectSnapshot) { self.before = before }

    func check(_ completed: CompletedStep) throws {
        try lock.withLock {
            let step = completed.step
            let after = try ObjectSnapshot.read(completed.store, model: step.destination.model)
            if case .lightweight(let inference) = step.kind,
                let difference = InferredStepCheck(inference: inference, before: before, after: after).firstDifference()
            {
                throw MigrationError(
                    .verification,
                    "\(step.source.name) → \(step.destination.name) did not keep what Core Data keeps: \(difference)",
                    fix: "report this with the model bundle: Chrysalis's inferred step lost data")
            }
            before = after
        }
    }
}
