import Foundation

/// The files one store is: the database, and the sidecars SQLite keeps beside it while it is
/// open or after a crash (`-wal`, `-shm`, `-journal`). One list, so that removing, copying or
/// checking a store never forgets one.
package enum StoreFiles {
    /// The sidecar suffixes, appended to the store's path.
    package static let sidecarSuffixes = ["-wal", "-shm", "-journal"]

    /// The store's path and each sidecar's.
    package static func paths(of store: String) -> [String] {
        [store] + sidecarSuffixes.map { store + $0 }
    }

    /// A store's path as a message names it to someone who may copy it: with its `-wal` when it
    /// has one, since the database file alone may lack rows that are still in the `-wal`.
    package static func named(_ store: String) -> String {
        FileManager.default.fileExists(atPath: store + "-wal") ? "\(store) (with \((store as NSString).lastPathComponent)-wal beside it: keep and copy the two together)" : store
    }

    /// Removes the store and its sidecars, those that exist; for stores a command made itself
    /// and must not leave behind.
    package static func remove(_ store: String) {
        for path in paths(of: store) { try? FileManager.default.removeItem(atPath: path) }
    }
}
