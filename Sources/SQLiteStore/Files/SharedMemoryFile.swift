import Foundation

/// A WAL store's `-shm` as it was before a read-only open: SQLite creates one where there was
/// none (32 kB) and rebuilds one it finds damaged, even for a reader, and `inspect` and `plan`
/// promise to leave every byte of a store's files as they were. Once this process's connection is
/// closed, the file is put back as it was (removed, or its bytes restored) — unless another
/// process has the store open, whose connection maps that very file and must keep it. Nothing is
/// done while this process itself has another connection to the store: reading the file would
/// open and close it, which drops that connection's locks on it.
final class SharedMemoryFile: @unchecked Sendable {
    private let store: String
    private let path: String
    /// The bytes before the open; nil when there was no `-shm`.
    private let before: Data?
    private var done = false
    private let lock = NSLock()

    /// Nil when this process already has the store open (see above).
    init?(store: String) {
        guard !StoreHolders.thisProcessHolds(store) else { return nil }
        self.store = store
        path = StoreFiles.shm(of: store)
        before = FileManager.default.contents(atPath: path)
    }

    /// Puts the file back as it was, once.
    func putBack() {
        lock.withLock {
            guard !done else { return }
            done = true
            // Reading the file opens it: never while this process has the store open. Only a
            // change needs the look at who else holds the store (a scan of `/proc`).
            guard !StoreHolders.thisProcessHolds(store), FileManager.default.contents(atPath: path) != before,
                StoreHolders.holders(of: store).isEmpty
            else { return }
            if let before { try? before.write(to: URL(fileURLWithPath: path)) } else { unlink(path) }
        }
    }
}
