import Foundation
import ObjectModel
import SQLiteStore

/// Counts a WAL store's rows per entity on a second connection and thread while a step's own
/// transaction changes the store: the counts the step is verified against, read on the other
/// core during the step's statements instead of before them.
///
/// Start it after the step has taken the write lock: nothing else can commit then, and a WAL
/// reader sees the last commit, never the step's uncommitted writes, so it counts the store
/// exactly as the step found it. ``wait()`` before the commit.
final class SnapshotRowCounts: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<[String: Int], Error>?

    /// Starts counting `entities` (rows whose `Z_ENT` is the entity's number) in the store
    /// `writer` writes, whose model is `model`; nil when the store is not in WAL mode.
    static func start(beside writer: PersistentStore, model: ManagedObjectModel, entities: Set<String>) throws
        -> SnapshotRowCounts?
    {
        guard let reader = try writer.snapshotReader() else { return nil }
        return SnapshotRowCounts(reader: reader, model: model, entities: entities)
    }

    private init(reader: PersistentStore, model: ManagedObjectModel, entities: Set<String>) {
        let thread = Thread { [self] in
            let counted = Result { try reader.rowCounts(model: model).filter { entities.contains($0.key) } }
            try? reader.close()
            condition.lock()
            result = counted
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "chrysalis.count"
        thread.start()
    }

    /// The counts, once the reader has finished and let go of the store; rethrows its error.
    func wait() throws -> [String: Int] {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result { return try result.get() }
            condition.wait()
        }
    }
}
