import Foundation
import ObjectModel
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// What a run a kill stopped leaves, said and put in order: for `inspect`, for `recover`, and for
/// the next run, which recovers first (``MigrationRunner/run(_:store:options:keepBackup:keepProgress:)``).
extension MigrationRunner {
    /// What an interrupted migration left of the store at `path` for the next run to finish or
    /// undo, said for people; nil when nothing. Reads only: `inspect` shows it so that a store a
    /// kill left between two versions is never taken for one that was migrated.
    ///
    /// - Parameter path: The store file.
    /// - Returns: What is pending, or `nil` when nothing is.
    public static func pendingRecovery(store path: String) -> String? {
        if FileManager.default.fileExists(atPath: PlanJournal.path(for: path)), PlanJournal.record(for: path) == nil {
            return
                """
                the plan journal beside the store is damaged: a migration may have stopped half way and the store \
                may be between two versions; `chrysalis recover` says what to check
                """
        }
        if let record = PlanJournal.record(for: path) {
            if PlanJournal.stoppedBeforeAnyChange(store: path) == true {
                return """
                    a migration to \(record.targetVersion) was stopped before its first step changed the store, \
                    which is as it was, at \(record.sourceVersion); `chrysalis recover` (or `migrate`) removes what \
                    it left
                    """
            }
            return PlanJournal.pendingOriginal(store: path) == nil
                ? """
                a migration to \(record.targetVersion) was stopped after its last step; `chrysalis recover` (or \
                `migrate`) tidies up
                """
                : """
                a migration from \(record.sourceVersion) to \(record.targetVersion) was stopped half way: the \
                store is not a version to use; `chrysalis recover` (or `migrate`) puts the original back from \
                \(record.original)
                """
        }
        let work = StoreSwap.Paths(store: path)
        if let stale = StoreSwap.staleBackup(store: path) {
            return
                """
                an in-place migration step was stopped before it committed, so the store is as it was; \
                `chrysalis recover` (or `migrate`) removes the copy it had made, \((stale as NSString).lastPathComponent)
                """
        }
        if [work.newStore, work.workStore, work.journal].contains(where: { FileManager.default.fileExists(atPath: $0) })
        {
            return
                """
                an interrupted migration step left its work files beside the store; `chrysalis recover` (or \
                `migrate`) removes them
                """
        }
        return nil
    }

    /// Finishes or undoes whatever an interrupted migration left of the store at `path`, without
    /// migrating: a crashed writer's unfinished transaction rolled back, a half-done swap undone,
    /// a plan stopped half way undone (the original put back) or, when it had reached its target,
    /// tidied. Returns what it did, one line each; empty when there was nothing to do.
    ///
    /// - Parameters:
    ///   - path: The store file.
    ///   - lockHolder: How the lock file names this process while it recovers.
    /// - Returns: What was done, one line each; empty when there was nothing to do.
    /// - Throws: A `StoreError` when a crashed writer's transaction cannot be rolled back; a
    ///   `MigrationError` when the store is locked or what was left cannot be put right.
    public static func recover(store path: String, lockHolder: String = ProcessInfo.processInfo.processName) throws
        -> [String]
    {
        // A swap killed half way may have left no file at the store's name, but then its work
        // files or journal are there: without any of them, the path is simply wrong.
        var info = stat()
        if lstat(path, &info) != 0, errno == ENOENT, pendingRecovery(store: path) == nil,
            !FileManager.default.fileExists(atPath: StoreSwap.backupMarker(for: path))
        {
            throw StoreError(
                .missing, path: path, "no such file, and nothing an interrupted migration left beside it",
                fix: "check the path: give the store's own file")
        }
        var done: [String] = []
        let journal = StoreFiles.journal(of: path)
        if ((try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? NSNumber)?.intValue ?? 0 > 0 {
            try PersistentStore.recoverInterruptedTransaction(at: path)
            if !FileManager.default.fileExists(atPath: journal) {
                done.append("a crashed writer's unfinished transaction was rolled back")
            }
        }
        let lock = try StoreLock(store: path, holder: lockHolder)
        defer { withExtendedLifetime(lock) {} }
        let work = StoreSwap.Paths(store: path)
        let leftovers = [work.newStore, work.workStore, work.journal].filter {
            FileManager.default.fileExists(atPath: $0)
        }
        let stale = try StoreSwap.recover(store: path)
        if !leftovers.isEmpty { done.append("an interrupted step's work files were removed") }
        if let stale {
            done.append(
                """
                an in-place step was stopped before it committed, so the store is as it was; the copy it had made, \
                \(StoreFiles.named(stale)), was removed
                """)
        }
        if let plan = try recoverInterruptedPlan(store: path) { done.append(plan) }
        return done
    }

    /// Finishes or undoes a plan a crash interrupted, and says what it did; nil when none was.
    static func recoverInterruptedPlan(store path: String) throws -> String? {
        let recovery = try PlanJournal.recover(store: path) {
            try? PersistentStore.open(at: path).metadata().versionHashes
        }
        switch recovery {
        case .finished(let target, let backup)?:
            return "an earlier run had finished migrating to \(target) when it stopped; its last files were tidied"
                + (backup.map { "; the original is kept as \(StoreFiles.named($0))" } ?? "")
        case .restored(let version)?:
            return "an earlier run was interrupted mid-plan; the original, at \(version), was put back first"
        case .untouched(let version)?:
            return """
                an earlier run was stopped before its first step changed the store, which is as it was, at \
                \(version); the journal it left was removed
                """
        case nil:
            return nil
        }
    }
}
