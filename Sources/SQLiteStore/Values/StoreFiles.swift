import Foundation

/// The files one store is: the database, and the sidecars SQLite keeps beside it while it is
/// open or after a crash (`-wal`, `-shm`, `-journal`). One list, so that removing, copying or
/// checking a store never forgets one.
package enum StoreFiles {
    /// The sidecar suffixes, appended to the store's path: the only place they are spelled.
    package static let sidecarSuffixes = [walSuffix, shmSuffix, journalSuffix]
    /// Each suffix, for code that names a sidecar of several paths at once (a swap's renames).
    package static let walSuffix = "-wal", shmSuffix = "-shm", journalSuffix = "-journal"

    /// The store's write-ahead log, where a WAL store's latest commits are until a checkpoint.
    package static func wal(of store: String) -> String { store + walSuffix }
    /// The WAL index other connections share (no data of its own).
    package static func shm(of store: String) -> String { store + shmSuffix }
    /// The rollback journal: a "hot" one after a crash holds the pages to put back.
    package static func journal(of store: String) -> String { store + journalSuffix }

    /// The bytes of the store at `store` with its `-wal` (where a WAL store's newest pages are):
    /// what a copy of it moves, and what the store's rows take up.
    package static func bytes(of store: String) -> Int {
        [store, wal(of: store)].reduce(0) { total, path in
            var info = stat()
            return total + (stat(path, &info) == 0 ? Int(info.st_size) : 0)
        }
    }

    /// Each sidecar's path.
    package static func sidecars(of store: String) -> [String] {
        sidecarSuffixes.map { store + $0 }
    }

    /// The store's path and each sidecar's.
    package static func paths(of store: String) -> [String] {
        [store] + sidecars(of: store)
    }

    /// The files that hold the store's data: the database, its `-wal` and its `-journal` (the
    /// `-shm` is an index SQLite rebuilds).
    package static func dataPaths(of store: String) -> [String] {
        [store, wal(of: store), journal(of: store)]
    }

    /// A store's path as a message names it to someone who may copy it: with its `-wal` when it
    /// has one, since the database file alone may lack rows that are still in the `-wal`.
    package static func named(_ store: String) -> String {
        FileManager.default.fileExists(atPath: wal(of: store))
            ? """
            \(store) (with \((wal(of: store) as NSString).lastPathComponent) beside it: keep and copy the two \
            together)
            """
            : store
    }

    /// Removes the store and its sidecars, those that exist; for stores a command made itself
    /// and must not leave behind.
    package static func remove(_ store: String) {
        for path in paths(of: store) { try? FileManager.default.removeItem(atPath: path) }
    }
}
