import Foundation
internal import GRDB
import ObjectModel

/// Everything `chrysalis inspect` reports about a store: file facts, metadata, entities with
/// their hashes and row counts, and which model version the store is at.
package struct StoreInspection: Sendable {
    /// One entity the store's metadata lists.
    package struct Entity: Sendable {
        /// The entity's name.
        package var name: String
        /// Its 32-byte version hash from the metadata.
        package var hash: Data
        /// Rows whose concrete entity is this one (its `Z_ENT`).
        package var rows: Int
    }

    /// The store file.
    package var path: String
    /// File size in bytes (the main file, without sidecars).
    package var fileSize: Int64
    /// `wal` or `delete` (rollback journal), as SQLite reports it.
    package var journalMode: String
    /// Page size in bytes.
    package var pageSize: Int
    /// Pages in the database (through the WAL).
    package var pageCount: Int
    /// The `-wal` sidecar, if present.
    package var walPath: String?
    /// The `-shm` sidecar, if present.
    package var shmPath: String?
    /// The store's metadata.
    package var metadata: StoreMetadata
    /// Entities listed in the metadata, by name.
    package var entities: [Entity]
    /// Which model describes the store.
    package var match: StoreModelMatch
    /// The bundle's current version, when a bundle was given.
    package var currentVersion: String?
    /// Whether the store's hashes equal the current version's (no migration needed).
    package var compatibleWithCurrent: Bool

    /// Inspects the store at `path` without writing to it; `bundle` is the model to match against.
    package static func inspect(_ path: String, bundle: ModelBundle?) throws -> StoreInspection {
        let store = try PersistentStore.open(at: path)
        let metadata = try store.metadata()
        let match = try StoreModelMatch.find(metadata: metadata, in: bundle, cachedModel: store.cachedModel)
        let counts = try store.rowCounts(model: match.model)
        let (journal, pages): (String, Int) = try store.read { db in
            // An immutable read-only connection reports "delete"; the header knows WAL.
            (
                store.file.isWAL ? "wal" : try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "unknown",
                try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            )
        }
        let entities = metadata.versionHashes.sorted { VersionHash.precedesInUTF16($0.key, $1.key) }
            .map { Entity(name: $0.key, hash: $0.value, rows: counts[$0.key] ?? 0) }
        let current = bundle?.current
        return StoreInspection(
            path: path, fileSize: store.file.fileSize, journalMode: journal, pageSize: store.file.pageSize,
            pageCount: pages,
            walPath: store.file.walPath, shmPath: store.file.shmPath, metadata: metadata, entities: entities,
            match: match,
            currentVersion: current?.name,
            compatibleWithCurrent: current.map { $0.entityHashes == metadata.versionHashes } ?? false)
    }
}
