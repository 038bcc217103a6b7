import Foundation
import ObjectModel
import SQLiteStore

/// What every step does around its own work, said once for the three kinds (in place, mapping,
/// handler): the store's lock unless the plan holds it, a crashed step's leftovers undone, the
/// store's version checked, room for the work, no other writer; for a step that changes the store
/// itself, the backup kept and removed again if the step fails; and the words of a step's failure.
struct StepStart {
    /// The store the step runs on.
    let path: String
    /// The step as messages name it: `A → B`, or the handler's name.
    let name: String
    /// Held for the step unless the plan holds it.
    private let lock: StoreLock?

    /// Takes the store's lock (unless `context` says the plan holds it) and, holding it, undoes
    /// what a crashed step left: a step starts from the store as its last commit left it.
    init(store path: String, step name: String, context: StepContext) throws {
        (self.path, self.name) = (path, name)
        lock = context.lockHeld ? nil : try StoreLock(store: path, holder: context.lockHolder)
        if lock != nil { try StoreSwap.recover(store: path) }
    }

    /// Keeps the lock to the end of `body`: a step's lock is released when the step is done.
    func holdingLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try withExtendedLifetime(lock) { try body() }
    }

    /// Refuses a store whose entity hashes are not `version`'s, naming the entities that differ
    /// (`why` says what needs the version, such as the handler that runs at it).
    func requireVersion(_ version: ModelBundle.Version, metadata: StoreMetadata, why: String = "") throws {
        guard version.entityHashes != metadata.versionHashes else { return }
        let differing = Set(metadata.versionHashes.keys).union(version.entityHashes.keys)
            .filter { metadata.versionHashes[$0] != version.entityHashes[$0] }.sorted()
        throw MigrationError(
            .wrongModel,
            """
            \(path) is not at version \(version.name)\(why): its entity hashes differ for \
            \(differing.joined(separator: ", "))
            """,
            fix: "run `chrysalis inspect \(path) --model …` to see which version it is at")
    }

    /// Refuses a step with no room for its work (`space`), then waits for another process's
    /// write to end, naming it if it does not: before the step opens a transaction it could time
    /// out in.
    func requireRoom(_ space: SpaceCheck) throws {
        try space.require(store: path, step: name)
        try OtherWriters.waitUntilNone(store: path)
    }

    /// Runs a step that changes the store itself: `keepBackup` first (it returns the backup's
    /// path, or nil when the step keeps none), then `change`. On an error the backup and its
    /// marker are removed, the store being as it was, and the error is worded (``failed(_:space:)``);
    /// once `change` returns, the marker goes and the backup stays.
    func inPlace<Result>(
        _ space: SpaceCheck, keepBackup: () throws -> String?, change: () throws -> Result
    ) throws -> (result: Result, backup: String?) {
        var backup: String?
        do {
            backup = try keepBackup()
            let result = try change()
            unlink(StoreSwap.backupMarker(for: path))
            return (result, backup)
        } catch {
            if let backup { PlanJournal.removeBackup(backup) }
            unlink(StoreSwap.backupMarker(for: path))
            throw failed(error, space: space)
        }
    }

    /// A step's failure as it reaches the user: `space`'s explanation when the disk filled, and
    /// what became of the store and the files beside it.
    func failed(_ error: Error, space: SpaceCheck) -> Error {
        StoreSwap.Paths(store: path).describing(space.explain(error, store: path, step: name))
    }
}
