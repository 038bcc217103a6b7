import Foundation
import ObjectModel
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// Makes a plan of several steps one transaction for the user: before its first step writes
/// anything, a small journal beside the store names the original's backup and the target's entity
/// hashes. Until the last step is done the original stays in that backup; an error or a cancel
/// puts it back, and after a kill the next run does (``recover(store:)``): it finds the store at
/// the target (the last step finished, swapped in and verified) and only tidies up, or anywhere
/// else and puts the original back, byte for byte. A store is never left at an intermediate
/// version presented as done.
struct PlanJournal {
    /// What the journal records.
    struct Record: Codable, Equatable {
        /// The original's backup path (made by the first step, or already there).
        var original: String
        /// The version the original is at, and the target.
        var sourceVersion: String, targetVersion: String
        /// The target's entity hashes, base64: the store has them once the last step is done.
        var targetHashes: [String: String]
        /// The original's entity hashes, base64: the store has them again once it is put back.
        /// (Absent from journals written before they were recorded.)
        var sourceHashes: [String: String]?
        /// Whether the backup is to be kept once the plan is done (`--no-backup` removes it).
        var keepsBackup: Bool
        /// What identifies each file of the backup this run wrote (by suffix: `""`, `-wal`),
        /// noted once the first step has made it and before the store changes: any store at the
        /// source version has the source's hashes, so only these tell the backup from a file
        /// planted or left at its name. Absent until then (and from older journals).
        var originalFiles: [String: FileStamp]?
    }

    /// A file as the tool wrote it: device and inode (which file), size and modification time
    /// (that it is as written). A link at the name is never followed to get these.
    struct FileStamp: Codable, Equatable {
        var device: UInt64, inode: UInt64, size: Int64, modified: Int64

        /// The stamp of the plain file at `path`; nil when there is none, or it is a link or
        /// anything but a plain file.
        init?(of path: String) {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        }
    }

    /// What a recovery found and did.
    enum Recovery: Equatable {
        /// The plan had finished: the store is at the target; the original is kept at `backup`
        /// (nil when it was not to be kept).
        case finished(target: String, backup: String?)
        /// The plan had not finished: the original is back in place, at `version`.
        case restored(version: String)
        /// The plan stopped before its first step changed the store: nothing was put back, the
        /// store is as it was, at `version`.
        case untouched(version: String)
    }

    /// `.Name.ext.chrysalis-plan` beside the store.
    static func path(for store: String) -> String {
        let url = URL(fileURLWithPath: store)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).chrysalis-plan").path
    }

    /// Writes and syncs the journal (and its directory) before the plan's first write: written
    /// whole under a temporary name, synced, then renamed into place, so that a power cut leaves
    /// either no journal (and no step has begun) or a whole one, never an empty or half one.
    static func begin(_ record: Record, store: String) throws {
        try save(record, store: store)
    }

    /// A journal a kill cut short under its temporary name (`.Name.ext.chrysalis-plan.PID.N`):
    /// never renamed into place, so it journals nothing. Removed when it is a plain file of this
    /// user's or a link (removing a link leaves its target); anything else is left alone.
    static func removeUnfinished(store: String) {
        let journal = URL(fileURLWithPath: path(for: store))
        let folder = journal.deletingLastPathComponent().path, prefix = journal.lastPathComponent + "."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK || OwnFiles.isOwnPlainFile(info) else {
                continue
            }
            unlink(path)
        }
    }

    private static func save(_ record: Record, store: String) throws {
        let data = try JSONEncoder().encode(record) + Data("\n".utf8)
        // A temporary name of this run's own, made where nothing is (``OwnFiles``): a link
        // planted at a name known in advance would have had the journal written into its target.
        let path = path(for: store), temporary = path + ".\(getpid()).\(UInt32.random(in: 0 ... .max))"
        let descriptor = try OwnFiles.create(temporary)
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = written == data.count && fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw failure("write \(path)")
        }
        try StoreSwap.syncDirectory(of: store)
    }

    /// Notes in the journal what identifies the backup `backup` just made, before the store
    /// changes; called by whatever makes the first step's backup. Nothing when no journal names it.
    static func noteBackup(_ backup: String, store: String) throws {
        guard var record = record(for: store), record.original == backup, record.originalFiles == nil else { return }
        var files: [String: FileStamp] = [:]
        for suffix in dataSuffixes {
            if let stamp = FileStamp(of: backup + suffix) { files[suffix] = stamp }
        }
        record.originalFiles = files
        try save(record, store: store)
    }

    /// The files of a store that hold its data: the main file, its `-wal` and a rollback
    /// `-journal`. A `-shm` is rebuilt by SQLite and never carried.
    static let dataSuffixes = ["", StoreFiles.walSuffix, StoreFiles.journalSuffix]

    /// Why the files at the backup's name cannot be trusted to be the backup the run wrote, or
    /// nil when they can: each noted file is at the backup's name unchanged (or, after a restore
    /// cut short, already back at the store's name), and no other data file sits beside them.
    static func untrustedBackup(_ record: Record, store: String) -> String? {
        guard let noted = record.originalFiles else {
            return "the journal does not say which file the backup is (it was written before the run noted it)"
        }
        for suffix in dataSuffixes {
            let path = record.original + suffix
            let shown = TerminalText.visible(path)
            switch (noted[suffix], FileStamp(of: path)) {
            case (nil, nil):
                if OwnFiles.exists(path) {
                    return "\(shown) is \(OwnFiles.describe(path)), which the migration did not write"
                }
            case (nil, _?):
                return "\(shown) is a file the migration did not write"
            case (let expected?, nil):
                if OwnFiles.exists(path) {
                    return "\(shown) is now \(OwnFiles.describe(path)), not the file the migration wrote"
                }
                // Moved back already by a restore cut short: the store's name has that very file.
                guard let back = FileStamp(of: store + suffix), back.device == expected.device,
                    back.inode == expected.inode
                else {
                    return "\(shown) is gone"
                }
            case let (expected?, found?):
                if found.device != expected.device || found.inode != expected.inode {
                    return "\(shown) is another file than the one the migration wrote"
                }
                if found.size != expected.size || found.modified != expected.modified {
                    return "\(shown) was changed after the migration wrote it"
                }
            }
        }
        return nil
    }

    /// The refusal when the backup cannot be trusted: nothing is put back or deleted, and the
    /// store, which holds the interrupted run's data, stays as it is.
    static func refusal(_ record: Record, store: String, because reason: String) -> MigrationError {
        let path = TerminalText.visible(path(for: store))
        return MigrationError(
            .swap,
            """
            a migration of \(TerminalText.visible(store)) from \(record.sourceVersion) to \(record.targetVersion) \
            stopped half way, and the file at its backup's name cannot be trusted to be the original: \(reason); \
            nothing was put back or deleted, and the store holds the interrupted migration's data between the two \
            versions
            """,
            fix:
                """
                find the original yourself (a backup of your own, or the file the migration wrote, wherever it \
                went) and put it in the store's place; then delete \(path)
                """
        )
    }

    /// Removes the journal once the plan is done or undone; the directory is synced so the
    /// removal outlives a crash.
    static func end(store: String) throws {
        unlink(path(for: store))
        try StoreSwap.syncDirectory(of: store)
    }

    /// The journal a run left, if any and if it can be trusted: whole (it is renamed into place
    /// only once written and synced), and naming an original beside the store, called after it.
    static func record(for store: String) -> Record? {
        guard let data = OwnFiles.contents(of: path(for: store)), data.last == UInt8(ascii: "\n"),
            var record = try? JSONDecoder().decode(Record.self, from: data)
        else { return nil }
        // A folder moved (or mounted elsewhere) since: the backup is the one beside the store,
        // by the name the journal gives it; whether it is the file written is checked by stamp.
        let beside = URL(fileURLWithPath: store).deletingLastPathComponent().appendingPathComponent(
            URL(fileURLWithPath: record.original).lastPathComponent
        )
        .path
        guard isBeside(beside, store: store) else { return nil }
        record.original = beside
        return record
    }

    /// Whether `original` is a backup name the plan could have chosen: in the store's folder,
    /// `Name~.ext` or `Name~N.ext` (``StoreSwap/Paths/backup()``).
    static func isBeside(_ original: String, store: String) -> Bool {
        let url = URL(fileURLWithPath: store), candidate = URL(fileURLWithPath: original)
        guard
            candidate.deletingLastPathComponent().standardizedFileURL.path
                == url.deletingLastPathComponent().standardizedFileURL.path,
            candidate.pathExtension == url.pathExtension
        else { return false }
        let base = url.deletingPathExtension().lastPathComponent,
            name = candidate.deletingPathExtension().lastPathComponent
        return name.hasPrefix(base + "~") && name.dropFirst(base.count + 1).allSatisfy { ("0"..."9").contains($0) }
    }

    /// A journal is there but cannot be trusted (empty, damaged, or naming a file elsewhere):
    /// nothing is deleted or put back on its word. The error names the backups beside the store
    /// for the user to judge.
    static func requireReadable(store: String) throws {
        let path = path(for: store)
        guard FileManager.default.fileExists(atPath: path), record(for: store) == nil else { return }
        let url = URL(fileURLWithPath: store)
        let base = url.deletingPathExtension().lastPathComponent
        let backups =
            ((try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? [])
            .filter { name in name.hasPrefix(base + "~") && !StoreFiles.sidecarSuffixes.contains { name.hasSuffix($0) }
            }.sorted()
        throw MigrationError(
            .swap,
            """
            the plan journal \(path) beside \(store) is damaged (empty, cut short, or naming a file outside the \
            store's folder): a migration may have stopped half way, and the store may be between two versions; \
            nothing was changed or deleted on its word
            """
                + (backups.isEmpty
                    ? "; no backup of the store is beside it"
                    : "; backups beside the store: \(backups.joined(separator: ", "))"),
            fix:
                """
                check the store with `chrysalis inspect`; if it is not the version you want, put its backup in its \
                place (with the backup's -wal, if any); then delete \(path)
                """
        )
    }

    /// The original's backup when a plan a crash interrupted will be undone by the next run (the
    /// store is not at the target): what that run will start from. Reads only.
    /// Whether the store a journal names is still at the plan's source version: the plan stopped
    /// before its first step changed it. Nil when there is no journal or it cannot be told.
    static func stoppedBeforeAnyChange(store: String) -> Bool? {
        guard let record = record(for: store),
            let source = record.sourceHashes?.compactMapValues({ Data(base64Encoded: $0) }),
            let current = try? PersistentStore.open(at: store).metadata().versionHashes
        else { return nil }
        return current == source
    }

    static func pendingOriginal(store: String) -> String? {
        guard let record = record(for: store), FileManager.default.fileExists(atPath: record.original) else {
            return nil
        }
        let target = record.targetHashes.compactMapValues { Data(base64Encoded: $0) }
        let current = try? PersistentStore.open(at: store).metadata().versionHashes
        return current == target ? nil : record.original
    }

    /// Finishes or undoes a plan a crash interrupted: `nil` when none was. `currentHashes` reads
    /// the store's entity hashes (nil when it cannot be read as a store).
    static func recover(store: String, currentHashes: () -> [String: Data]?) throws -> Recovery? {
        let path = path(for: store)
        removeUnfinished(store: store)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        try requireReadable(store: store)
        guard let record = record(for: store) else { return nil }
        let target = record.targetHashes.compactMapValues { Data(base64Encoded: $0) }
        let current = currentHashes()
        if StoreFiles.paths(of: record.original).allSatisfy({ !FileManager.default.fileExists(atPath: $0) }) {
            return try recoverWithoutBackup(record, store: store, current: current)
        }
        if current == target {
            // Only the run's own backup is removed: a file someone else put at its name stays.
            if !record.keepsBackup, untrustedBackup(record, store: store) == nil { removeBackup(record.original) }
            try end(store: store)
            return .finished(target: record.targetVersion, backup: record.keepsBackup ? record.original : nil)
        }
        if let source = record.sourceHashes?.compactMapValues({ Data(base64Encoded: $0) }), current == source,
            record.originalFiles == nil
        {
            // Stopped before the first step changed the store: it is the original still, and
            // whatever is at the backup's name is not known to be the run's; left as it is.
            try end(store: store)
            return .untouched(version: record.sourceVersion)
        }
        try restore(store: store, record: record)
        try end(store: store)
        return .restored(version: record.sourceVersion)
    }

    /// A plan journal whose backup is gone: a restore that finished (the store is the original
    /// again), the plan's end (the store at the target), a plan stopped before step 1 changed the
    /// store, or a backup someone deleted, which is said as it is.
    private static func recoverWithoutBackup(_ record: Record, store: String, current: [String: Data]?) throws
        -> Recovery
    {
        let target = record.targetHashes.compactMapValues { Data(base64Encoded: $0) }
        if current == target {
            try end(store: store)
            return .finished(target: record.targetVersion, backup: nil)
        }
        if let source = record.sourceHashes?.compactMapValues({ Data(base64Encoded: $0) }), current != source {
            throw MigrationError(
                .swap,
                """
                a migration from \(record.sourceVersion) to \(record.targetVersion) stopped half way and the \
                original's backup \(record.original) is gone: \(store) is between the two versions and cannot \
                be put back
                """,
                fix:
                    """
                    restore the store from a backup of your own, or delete \(path(for: store)) and migrate the store from \
                    the version it is at (`chrysalis inspect` names it)
                    """
            )
        }
        try end(store: store)
        // The store is the backup's very file only when a restore moved it back; else the
        // plan stopped before step 1 changed the store (a kill while it copied the store
        // aside, or an uncommitted in-place step whose stale copy was removed).
        let restored = record.originalFiles?[""].map { noted in
            FileStamp(of: store).map { $0.device == noted.device && $0.inode == noted.inode } ?? false
        }
        return restored == true
            ? .restored(version: record.sourceVersion) : .untouched(version: record.sourceVersion)
    }

    /// The backup's files, links never followed (a link at a name is removed, not its target).
    static func removeBackup(_ backup: String) {
        for path in StoreFiles.paths(of: backup) { unlink(path) }
    }

    /// Puts the original back in place of whatever the store is now, once ``untrustedBackup(_:store:)``
    /// has found the backup to be the file the run wrote (else refuses, changing nothing). The
    /// store's own sidecars go first (a `-wal` must never meet another database's main file),
    /// then the original's main file takes the name, then its `-wal` or `-journal`; each act
    /// checks before it acts, so a restore cut short is finished by the next run.
    static func restore(store: String, record: Record) throws {
        if let reason = untrustedBackup(record, store: store) { throw refusal(record, store: store, because: reason) }
        let backup = record.original
        if FileStamp(of: backup) != nil {
            for path in StoreFiles.sidecars(of: store) { unlink(path) }
            guard rename(backup, store) == 0 else { throw failure("move the original \(backup) back to \(store)") }
        }
        for suffix in dataSuffixes.dropFirst()
        where FileStamp(of: backup + suffix) != nil && !OwnFiles.exists(store + suffix) {
            guard rename(backup + suffix, store + suffix) == 0 else { throw failure("move \(backup + suffix) back") }
        }
        // Shared memory is rebuilt by SQLite: never carried, and a link at its name never kept.
        unlink(backup + StoreFiles.shmSuffix)
        try StoreSwap.syncDirectory(of: store)
    }

    private static func failure(_ action: String) -> MigrationError {
        MigrationError(
            .swap, "could not \(action): \(String(cString: strerror(errno)))",
            fix:
                """
                check the directory's permissions and free space, then run the migration again: it puts the \
                original back first
                """
        )
    }
}
