import Foundation
import ObjectModel
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// Puts a migrated store in place of its source, Core Data's way: the source becomes the backup
/// `Name~.ext` (with its `-wal`/`-shm`), the new store takes the name, the directory is fsynced.
///
/// A small journal file makes the swap recoverable: if the process dies half way, ``recover(store:)``
/// at the next start undoes it while the new store has not yet taken the name, and only tidies up
/// once it has, so the store path always holds one complete store — and still the one the next
/// run planned from (a plan is made before the lock is taken and recovery runs).
enum StoreSwap {
    /// Files a migration of `store` works in, all beside it (one directory, so renames are atomic).
    struct Paths {
        let store: String
        var newStore: String { sibling("chrysalis-new") }
        var workStore: String { sibling("chrysalis-work") }
        var journal: String { sibling("chrysalis-swap") }

        private func sibling(_ tag: String) -> String {
            let url = URL(fileURLWithPath: store)
            return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(tag)").path
        }

        /// `error` as a person should read it: the hidden work files are named for what they are
        /// (`the migrated copy of Books.sqlite`), never by their dot-names.
        func describing(_ error: Error) -> Error {
            let plain = { (text: String) in
                text.replacingOccurrences(of: newStore, with: "the migrated copy of \(store)")
                    .replacingOccurrences(of: workStore, with: "the migration's work file beside \(store)")
            }
            switch error {
            case let error as StoreError where error.path == newStore || error.path == workStore:
                return MigrationError(.store, "\(plain(error.path)): \(error.problem)", fix: error.fix)
            case var error as MigrationError:
                error.message = plain(error.message)
                error.fix = error.fix.map(plain)
                return error
            case is StoreError, is ModelFileError:
                return error
            default:
                return MigrationError(.store, plain("\(error)"))
            }
        }

        /// `Name~.ext`, or `Name~2.ext`… when earlier backups exist: none is ever overwritten.
        func backup() -> String {
            let url = URL(fileURLWithPath: store)
            let base = url.deletingPathExtension().lastPathComponent, ext = url.pathExtension
            let directory = url.deletingLastPathComponent()
            var index = 1
            while true {
                let name = "\(base)~\(index == 1 ? "" : String(index))" + (ext.isEmpty ? "" : ".\(ext)")
                let candidate = directory.appendingPathComponent(name).path
                // A name is free only when no sidecar of an interrupted copy sits there either.
                if StoreFiles.paths(of: candidate).allSatisfy({ !FileManager.default.fileExists(atPath: $0) }) {
                    return candidate
                }
                index += 1
            }
        }
    }

    /// Removes what an interrupted migration left (never the store or a backup), undoing an
    /// interrupted swap first. Returns the stale copy of an uncommitted in-place step it removed.
    ///
    /// Finishing the swap instead would move the store to the next version under a caller that
    /// already planned from the old one: the step it then runs finds the wrong version and fails.
    @discardableResult
    static func recover(store: String) throws -> String? {
        let paths = Paths(store: store)
        if OwnFiles.exists(paths.journal) {
            // A journal cut short (no final newline) was never synced: the swap had not begun.
            // Only the tool's own file is read, and only a backup name beside the store taken.
            let text = OwnFiles.contents(of: paths.journal).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let backup = text.hasSuffix("\n") ? text.trimmingCharacters(in: .whitespacesAndNewlines) : ""
            if !backup.isEmpty, PlanJournal.isBeside(backup, store: store),
                FileManager.default.fileExists(atPath: paths.newStore)
            {
                try undo(paths, backup: backup)
            }
            unlink(paths.journal)
        }
        for file in [paths.newStore, paths.workStore] {
            for path in StoreFiles.paths(of: file) { unlink(path) }
        }
        return try removeStaleBackup(store: store)
    }

    /// `.Name.ext.chrysalis-backup`: names the backup an in-place step is copying or has copied,
    /// until the step has committed or failed.
    static func backupMarker(for store: String) -> String {
        let url = URL(fileURLWithPath: store)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).chrysalis-backup").path
    }

    /// An in-place step killed before it committed leaves its full copy of the store as a
    /// backup, which the next run would otherwise keep and pass over for `Name~2.ext`. The
    /// marker names it; it is removed only while the store still has the backup's hashes (the
    /// step never committed, so the backup is a copy of what the store is now), else kept.
    private static func removeStaleBackup(store: String) throws -> String? {
        let marker = backupMarker(for: store)
        guard OwnFiles.exists(marker) else { return nil }
        let stale = staleBackup(store: store)
        if let stale {
            for path in StoreFiles.paths(of: stale) { unlink(path) }
        }
        unlink(marker)
        try syncDirectory(of: store)
        return stale
    }

    /// The copy the marker names when it is stale: beside the store, with the store's hashes
    /// (the step that made it never committed). Reads only.
    static func staleBackup(store: String) -> String? {
        let named = OwnFiles.contents(of: backupMarker(for: store)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let backup = named.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !backup.isEmpty, PlanJournal.isBeside(backup, store: store),
            FileManager.default.fileExists(atPath: backup),
            let kept = try? PersistentStore.open(at: backup).metadata().versionHashes,
            let now = try? PersistentStore.open(at: store).metadata().versionHashes, kept == now
        else { return nil }
        return backup
    }

    /// Swaps `newStore` in for the store, keeping the store as `backup` (default: the first free
    /// `Name~.ext`); returns the backup path.
    static func swap(_ paths: Paths, backup chosen: String? = nil) throws -> String {
        let backup = chosen ?? paths.backup()
        try writeJournal(paths.journal, backup: backup)
        try syncDirectory(of: paths.store)
        try finish(paths, backup: backup)
        unlink(paths.journal)
        try syncDirectory(of: paths.store)
        return backup
    }

    /// Puts `newStore` in place of the store without keeping the store: for the later steps of a
    /// plan whose original a ``PlanJournal`` keeps (an interrupted replace is undone with the
    /// rest of the plan). The store's sidecars go first: its `-wal` must never meet the new store.
    static func replace(_ paths: Paths) throws {
        for path in StoreFiles.sidecars(of: paths.store) { unlink(path) }
        guard rename(paths.newStore, paths.store) == 0 else { throw failure("move the new store to \(paths.store)") }
        try syncDirectory(of: paths.store)
    }

    /// Writes and syncs the journal in place. `Data.write(options: .atomic)` would go through a
    /// temporary `.dat.nosync…` file beside the store, which a kill at the wrong moment leaves
    /// there for good; a journal cut short instead lacks its newline and recovery ignores it.
    private static func writeJournal(_ path: String, backup: String) throws {
        let descriptor = try OwnFiles.create(path)
        defer { close(descriptor) }
        let bytes = Array((backup + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else { throw failure("write \(path)") }
    }

    /// Copies the store (with its `-wal`, byte for byte) to a new backup name and returns it, for
    /// a step that changes the store in place. The copy is made under a work name and renamed
    /// when complete, so an interrupted copy never looks like a backup.
    /// `copied` hears the bytes copied so far, across the store and its `-wal`.
    static func copyAside(store: String, backup chosen: String? = nil, copied: (Int) -> Void = { _ in }) throws
        -> String
    {
        let paths = Paths(store: store)
        let backup = chosen ?? paths.backup()
        let present =
            [""] + (FileManager.default.fileExists(atPath: StoreFiles.wal(of: store)) ? [StoreFiles.walSuffix] : [])
        // Named before the copy exists, so that a kill from here on leaves nothing unaccounted for.
        let marker = try OwnFiles.create(backupMarker(for: store))
        let named = Array((backup + "\n").utf8)
        let written = write(marker, named, named.count)
        close(marker)
        guard written == named.count else { throw failure("write \(backupMarker(for: store))") }
        do {
            let permissions = try FilePermissions(of: store)
            let reader = try PersistentStore.open(at: store)
            defer { try? reader.close() }
            try reader.holdingReadLock {
                var before = 0
                for suffix in present {
                    unlink(paths.workStore + suffix)
                    var size = 0
                    try permissions.copy(store + suffix, to: paths.workStore + suffix) {
                        size = $0; copied(before + $0)
                    }
                    before += size
                }
            }
        } catch {
            // Nothing of the copy stays: its work files, and the marker that named it.
            for suffix in present { unlink(paths.workStore + suffix) }
            unlink(backupMarker(for: store))
            let full = SpaceCheck.isFullDisk(error)
            let exhausted = full ? OpenFailure.volumeExhausted(at: (store as NSString).deletingLastPathComponent) : nil
            throw MigrationError(
                full ? .noSpace : .swap,
                "could not copy \(store) to its backup \(backup): "
                    + (exhausted.map { "\($0.problem) (\(error))" } ?? "\(error)"),
                fix: (exhausted?.fix ?? "free space on the volume")
                    + " (the backup needs the store's size), or run with --no-backup")
        }
        for suffix in present.reversed() {
            guard rename(paths.workStore + suffix, backup + suffix) == 0 else {
                throw failure("move the backup copy to \(backup + suffix)")
            }
        }
        try syncDirectory(of: store)
        // Before the step changes the store: a plan notes which file its backup is.
        try PlanJournal.noteBackup(backup, store: store)
        return backup
    }

    /// Each act checks before it acts, and the rename of the new store comes last, so an
    /// interrupted swap is either done or undone whole by ``undo(_:backup:)``.
    private static func finish(_ paths: Paths, backup: String) throws {
        let manager = FileManager.default
        // The source's sidecars go first: an old WAL must never sit beside the new store.
        if manager.fileExists(atPath: paths.store), !manager.fileExists(atPath: backup) {
            guard link(paths.store, backup) == 0 else { throw failure("link \(paths.store) to \(backup)") }
        }
        for suffix in StoreFiles.sidecarSuffixes where manager.fileExists(atPath: paths.store + suffix) {
            guard rename(paths.store + suffix, backup + suffix) == 0 else {
                throw failure("move \(paths.store + suffix)")
            }
        }
        // The backup is whole and the store not yet replaced: a plan notes which file it is.
        try PlanJournal.noteBackup(backup, store: paths.store)
        if manager.fileExists(atPath: paths.newStore) {
            guard rename(paths.newStore, paths.store) == 0 else {
                throw failure("move the new store to \(paths.store)")
            }
        }
    }

    /// Reverses ``finish(_:backup:)`` while the new store still has its work name (the rename that
    /// puts it in place is the swap's last act): the source's sidecars come back beside it and the
    /// backup name, a second link to the source, goes. The new store is removed by the caller.
    private static func undo(_ paths: Paths, backup: String) throws {
        for suffix in StoreFiles.sidecarSuffixes where FileManager.default.fileExists(atPath: backup + suffix) {
            guard rename(backup + suffix, paths.store + suffix) == 0 else {
                throw failure("move \(backup + suffix) back")
            }
        }
        var source = stat(), link = stat()
        if stat(paths.store, &source) == 0, stat(backup, &link) == 0, source.st_dev == link.st_dev,
            source.st_ino == link.st_ino
        {
            unlink(backup)
        }
        try syncDirectory(of: paths.store)
    }

    /// Flushes the file at `path` to disk.
    static func syncFile(_ path: String) throws {
        guard try sync(path) else { throw failure("sync \(path)") }
    }

    /// Flushes the directory holding `path`, so renames and unlinks in it are on disk. Some
    /// file systems refuse to fsync a directory; the renames are then as durable as they get.
    static func syncDirectory(of path: String) throws {
        _ = try sync(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// Opens `path` read-only and fsyncs it; whether the fsync succeeded.
    private static func sync(_ path: String) throws -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open \(path)") }
        defer { close(descriptor) }
        return fsync(descriptor) == 0
    }

    private static func failure(_ action: String) -> MigrationError {
        MigrationError(
            .swap, "could not \(action): \(String(cString: strerror(errno)))",
            fix: "check the directory's permissions and free space; run the migration again to finish the swap")
    }
}
