import Foundation
import Logging
import ObjectModel
import SQLiteStore

/// Runs a ``MigrationPlan`` step by step under one lock, as one transaction for the user: the
/// original is kept until the last step is done, and an error or a cancel after the first step
/// puts it back, byte for byte (a plan journal beside the store lets the next run do the same after a kill).
/// `keepProgress` keeps the completed steps instead. Lightweight steps run in place, mapping
/// steps through the manager; the original is kept as `Name~.ext` unless told otherwise.
public enum MigrationRunner {
    /// What a whole plan did.
    public struct Report: Sendable {
        /// Each step's report, in order.
        public var steps: [MigrationReport]
        /// The original store's backup, unless backups were turned off.
        public var backup: String?
        /// What the run found of an earlier run a crash interrupted, and did about it.
        public var recovered: String?

        /// Rows per entity before the plan, from the first step that counted them (a schema-only
        /// in-place step counts nothing because it keeps every row); empty if none did.
        public var rowsBefore: [String: Int] { steps.first { !$0.rowsBefore.isEmpty }?.rowsBefore ?? [:] }
        /// Rows per entity after the plan, from the last step that counted them.
        public var rowsAfter: [String: Int] { steps.last { !$0.rowsAfter.isEmpty }?.rowsAfter ?? [:] }
    }

    /// Runs `plan` on the store at `path`. Every error it throws is a ``MigrationError`` whose
    /// ``MigrationError/state`` says where the store stands.
    ///
    /// - Parameters:
    ///   - plan: The plan, made for this store.
    ///   - path: The store file.
    ///   - options: How each step runs.
    ///   - keepBackup: Whether the original is kept as `Name~.ext`.
    ///   - keepProgress: Whether a failure keeps the completed steps instead of putting the
    ///     original back.
    /// - Returns: What the plan did.
    /// - Throws: A `MigrationError` whose `state` says where the store stands.
    public static func run(
        _ plan: MigrationPlan, store path: String, options: MigrationOptions = MigrationOptions(),
        keepBackup: Bool = true, keepProgress: Bool = false
    ) throws -> Report {
        let unchanged = StoreState.unchanged(version: plan.storeVersion)
        // Already at its target, with nothing an earlier run left to finish: nothing is written,
        // so nothing is locked either (the store may be on a read-only volume).
        if plan.steps.isEmpty, pendingRecovery(store: path) == nil {
            return Report(steps: [], backup: nil, recovered: nil)
        }
        let lock: StoreLock, recovered: String?
        do {
            lock = try StoreLock(store: path, holder: options.lockHolder)
            try StoreSwap.recover(store: path)
            recovered = try recoverInterruptedPlan(store: path)
            try requireStart(of: plan, store: path)
            try plan.requirePolicies(options.policies)
            if !plan.steps.isEmpty {
                try requireRunnable(
                    plan, store: path, options: options, keepsOriginal: keepBackup || plan.steps.count > 1)
            }
        } catch {
            throw MigrationError.from(error, state: unchanged)
        }
        defer { withExtendedLifetime(lock) {} }
        guard !plan.steps.isEmpty else { return Report(steps: [], backup: nil, recovered: recovered) }
        let run = PlanRun(plan: plan, path: path, options: options, keepBackup: keepBackup, keepProgress: keepProgress)
        try run.beginJournal()
        let reports = try run.runSteps()
        return Report(steps: reports, backup: run.finish(reports), recovered: recovered)
    }

    /// What is checked under the lock before the first write: no other name or holder, the
    /// owner a swap must keep, every page when asked, the rows and views a later step would stop
    /// at (so no step runs only to be undone), and the space for the whole plan.
    private static func requireRunnable(
        _ plan: MigrationPlan, store path: String, options: MigrationOptions, keepsOriginal: Bool
    ) throws {
        try OtherNames.requireNone(store: path)
        try OpenHandles.requireNone(store: path, before: "the first write")
        if options.checksPages { try PersistentStore.requireSound(at: path) }
        if let mapping = plan.steps.firstIndex(where: { if case .mapping = $0.kind { true } else { false } }) {
            try FilePermissions.requireSwappable(store: path)
            // Rows no entity owns stop a mapping step: checked first when steps would run (and
            // be undone) before it, as `plan` checks. A first step that is the mapping step
            // meets them before it writes anything.
            if mapping > 0 { try plan.requireOwnedRows(store: path) }
        }
        try plan.requireViewsKept(store: path)
        try SpaceCheck.plan(plan, store: path, keepsOriginal: keepsOriginal)
            .require(
                store: path,
                for:
                    """
                    the plan \(plan.storeVersion) → \(plan.targetVersion) (\(plan.steps.count) \
                    step\(plan.steps.count == 1 ? "" : "s"))
                    """
            )
    }

    /// One plan while it runs, under the lock: its journal, its steps, and what is kept at the end.
    private struct PlanRun {
        let plan: MigrationPlan
        let path: String
        let options: MigrationOptions
        let keepBackup: Bool
        /// The original is needed at the end when it is kept, and until the end to put back.
        let needsOriginal: Bool
        /// Steps after the first are undone with the original unless progress is kept.
        let journaled: Bool
        let original: String?

        init(plan: MigrationPlan, path: String, options: MigrationOptions, keepBackup: Bool, keepProgress: Bool) {
            (self.plan, self.path, self.options, self.keepBackup) = (plan, path, options, keepBackup)
            needsOriginal = keepBackup || plan.steps.count > 1
            journaled = plan.steps.count > 1 && !keepProgress
            original = needsOriginal ? StoreSwap.Paths(store: path).backup() : nil
        }

        /// The plan journal beside the store, which lets the next run put the original back after a kill.
        func beginJournal() throws {
            guard journaled, let original else { return }
            do {
                try PlanJournal.begin(
                    .init(
                        original: original, sourceVersion: plan.storeVersion, targetVersion: plan.targetVersion,
                        targetHashes: plan.steps[plan.steps.count - 1].destination.entityHashes.mapValues {
                            $0.base64EncodedString()
                        },
                        sourceHashes: plan.steps[0].source.entityHashes.mapValues { $0.base64EncodedString() },
                        keepsBackup: keepBackup), store: path)
            } catch {
                throw MigrationError.from(error, state: .unchanged(version: plan.storeVersion))
            }
        }

        /// Every step in order, each told where it stands in the plan; a step that fails undoes
        /// the plan (``stopped(_:at:by:store:original:journaled:keepBackup:)``).
        func runSteps() throws -> [MigrationReport] {
            var reports: [MigrationReport] = []
            var verifiedRows: VerifiedRowCounts?
            var contents: ContentSummary?
            let storeBytes = StoreFiles.bytes(of: path)
            let spans = ProgressSpan.spans(
                costs: StageCost.planCosts(
                    plan, storeBytes: storeBytes, keepsBackup: needsOriginal, policies: options.policies))
            for (index, step) in plan.steps.enumerated() {
                let report = try run(
                    step, index: index,
                    context: stepContext(index, span: spans[index], verifiedRows: verifiedRows, contents: contents))
                do {
                    // A caller's afterStep may wait (step mode): that time is not the migration's.
                    try spans[index].paused.counting {
                        try options.afterStep?(
                            CompletedStep(
                                index: index + 1, count: plan.steps.count, step: step, report: report, store: path))
                    }
                } catch {
                    // The step itself is done: the plan stops as if the next one had failed. What
                    // failed was said of this step (a check of what it did).
                    throw try failure(
                        at: index + 1, by: Self.keepingOthers(error, path, since: report.contents), of: step)
                }
                if index > 0, let backup = report.backup {
                    for path in StoreFiles.paths(of: backup) { unlink(path) }
                }
                reports.append(report)
                verifiedRows = VerifiedRowCounts(after: report, store: path)
                contents = report.contents
            }
            return reports
        }

        /// Step `index`, logged; a failure stops the plan (``failure(at:by:of:)``), said as another
        /// process's write when the store no longer holds what the step before left.
        private func run(_ step: MigrationPlan.Step, index: Int, context: StepContext) throws -> MigrationReport {
            do {
                MigrationLog.plan.debug(
                    """
                    running step \(index + 1)/\(plan.steps.count) \(step.source.name) → \(step.destination.name) \
                    [\(step.kind.name)]
                    """
                )
                let report = try MigrationRunner.run(step, store: path, context: context)
                MigrationLog.plan.debug(
                    """
                    step \(index + 1) done in \(String(format: "%.3f", report.duration)) s: \
                    \(report.passes.joined(separator: ", "))
                    """
                )
                return report
            } catch {
                throw try failure(
                    at: index, by: Self.keepingOthers(error, path, since: context.contentsBefore), of: step)
            }
        }

        /// `error`, or another process's write when the store no longer holds `contents`.
        private static func keepingOthers(_ error: Error, _ path: String, since contents: ContentSummary?) -> Error {
            (error as? MigrationError)?.kind != .otherWriter && writtenByOthers(path, since: contents)
                ? OtherWriters.foreignWrite(store: path) : error
        }

        /// The plan stopped at step `index` by `error` (undone, or kept with keep-progress), said
        /// of `step` unless the error names its own.
        private func failure(at index: Int, by error: Error, of step: MigrationPlan.Step) throws -> MigrationError {
            var failure = try stopped(
                plan, at: index, by: error, store: path, original: original, journaled: journaled,
                keepBackup: keepBackup)
            failure.step = failure.step ?? "\(step.source.name) → \(step.destination.name)"
            return failure
        }

        /// Whether the store no longer holds what the last step left (its ``ContentSummary``):
        /// another process wrote it since (a row of an app still on the old model, say, under an
        /// entity number the new model gives another entity), which no file time may show when
        /// it came in the same tick. Asked before a failed step's plan puts anything back, so
        /// that such a write is kept, never erased with the steps done.
        private static func writtenByOthers(_ path: String, since contents: ContentSummary?) -> Bool {
            guard let contents, let store = try? PersistentStore.open(at: path) else { return false }
            defer { try? store.close() }
            return (try? store.contentSummary()).map { $0 != contents } ?? false
        }

        /// Step `index`, whose share of the plan's progress bar is `span`.
        private func stepContext(
            _ index: Int, span: ProgressSpan, verifiedRows: VerifiedRowCounts?, contents: ContentSummary?
        ) -> StepContext {
            var stepOptions = options.stepContext
            stepOptions.progress = ProgressTarget(
                channel: options.progressChannel, span: span, step: index + 1, stepCount: plan.steps.count)
            stepOptions.lockHeld = true
            stepOptions.keepsBackup = index == 0 && needsOriginal
            stepOptions.backupPath = index == 0 ? original : nil
            // Later steps of a journaled plan replace the store: the original is kept already.
            stepOptions.replacesSource = index > 0 && journaled
            stepOptions.verifiedRows = verifiedRows
            stepOptions.contentsBefore = contents
            // A later step compares with it, and so does a caller's afterStep that fails.
            stepOptions.summarizesContents = index + 1 < plan.steps.count || options.afterStep != nil
            return stepOptions
        }

        /// The journal ended and, unless it is kept, the original's copy removed; returns the backup.
        func finish(_ reports: [MigrationReport]) -> String? {
            if journaled { try? PlanJournal.end(store: path) }
            guard let kept = reports.first?.backup else { return nil }
            guard keepBackup else {
                for path in StoreFiles.paths(of: kept) { unlink(path) }
                return nil
            }
            return kept
        }
    }

    /// One step, by its kind.
    private static func run(_ step: MigrationPlan.Step, store path: String, context: StepContext) throws
        -> MigrationReport
    {
        try step.kind.work.run(step, store: path, context: context)
    }

    /// The error for a plan stopped in step `index`, after undoing the steps before it (or, with
    /// keep-progress, keeping them), saying where the store stands.
    private static func stopped(
        _ plan: MigrationPlan, at index: Int, by error: Error, store path: String,
        original: String?, journaled: Bool, keepBackup: Bool
    ) throws -> MigrationError {
        // A failed step has rolled itself back: the store is as the step before left it.
        let version = index > 0 ? plan.steps[index - 1].destination.name : plan.storeVersion
        if (error as? MigrationError)?.kind == .otherWriter {
            // Another process committed to the store: its changes stand, and nothing is put back
            // over them. The original stays where it is, named, for the user to decide.
            if journaled { try? PlanJournal.end(store: path) }
            return MigrationError.from(
                error,
                state: .keptOtherWrites(
                    version: version, done: index, total: plan.steps.count, backup: index > 0 ? original : nil))
        }
        guard index > 0 else {
            if journaled { try? PlanJournal.end(store: path) }
            return MigrationError.from(error, state: .unchanged(version: plan.storeVersion))
        }
        guard journaled, let original else {
            return MigrationError.from(
                error,
                state: .partial(
                    version: plan.steps[index - 1].destination.name, done: index,
                    total: plan.steps.count, backup: keepBackup ? original : nil))
        }
        return putOriginalBack(plan, at: index, by: error, store: path, original: original)
    }

    /// The original put back from the backup the plan journal names, after `error` stopped the
    /// plan in step `index`; the error says where the store stands either way.
    private static func putOriginalBack(
        _ plan: MigrationPlan, at index: Int, by error: Error, store path: String, original: String
    )
        -> MigrationError
    {
        do {
            // The journal says which file the backup is; one swapped in at its name since is refused.
            guard let record = PlanJournal.record(for: path) else {
                throw MigrationError(
                    .swap, "the plan journal beside \(path) is gone or no longer the one this run wrote")
            }
            if let reason = PlanJournal.untrustedBackup(record, store: path) {
                // Nothing is put back from a file that is not the backup: the refusal says what to do.
                return MigrationError.from(
                    PlanJournal.refusal(record, store: path, because: reason),
                    state: .interrupted(
                        version: plan.steps[index - 1].destination.name, done: index, total: plan.steps.count,
                        backup: nil))
            }
            try PlanJournal.restore(store: path, record: record)
            try PlanJournal.end(store: path)
        } catch {
            // The journal stays: the next run puts the original back.
            var failure = MigrationError.from(
                error,
                state: .interrupted(
                    version: plan.steps[index - 1].destination.name, done: index,
                    total: plan.steps.count, backup: original))
            failure.fix = "run the same command again: it puts the original back first"
            return failure
        }
        return MigrationError.from(error, state: .restored(version: plan.storeVersion))
    }

    /// What the look for other processes holding the store, made before the first write, cannot
    /// see: for a rollback-journal store, the apps of other users; said before the run, so a user
    /// who runs unprivileged knows to quit them. Nil when every holder would be seen.
    ///
    /// - Parameter path: The store file.
    /// - Returns: The sentence to show, or `nil`.
    public static func unseenHolders(store path: String) -> String? { OpenHandles.blindSpot(store: path) }

    /// The store must still be where the plan starts: a plan made before another process (or a
    /// recovery) changed it would run the wrong steps.
    private static func requireStart(of plan: MigrationPlan, store path: String) throws {
        guard let first = plan.steps.first else { return }
        let hashes = try PersistentStore.open(at: path).metadata().versionHashes
        guard hashes == first.source.entityHashes else {
            throw MigrationError(
                .wrongModel,
                """
                \(path) is no longer at \(first.source.name), where the plan starts (another process changed it \
                since it was planned)
                """,
                fix: "run the command again: it plans from the store as it is now")
        }
    }
}
