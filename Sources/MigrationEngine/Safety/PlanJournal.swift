import Foundation
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
    }

    /// What a recovery found and did.
    enum Recovery: Equatable {
        /// The plan had finished: the store is at the target; the original is kept at `backup`
        /// (nil when it was not to be kept).
        case finished(target: String, backup: String?)
        /// The plan had not finished: the original is back in place, at `version`.
        case restored(version: String)
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
        let data = try JSONEncoder().encode(record) + Data("\n".utf8)
        let path = path(for: store), temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create \(temporary)") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = written == data.count && fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw failure("write \(path)")
        }
        try StoreSwap.syncDirectory(of: store)
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
        guard let data = FileManager.default.contents(atPath: path(for: store)), data.last == UInt8(ascii: "\n"),
              let record = try? JSONDecoder().decode(Record.self, from: data), isBeside(record.original, store: store) else { return nil }
        return record
    }

    /// Whether `original` is a backup name the plan could have chosen: in the store's folder,
    /// `Name~.ext` or `Name~N.ext` (``StoreSwap/Paths/backup()``).
    private static func isBeside(_ original: String, store: String) -> Bool {
        let url = URL(fileURLWithPath: store), candidate = URL(fileURLWithPath: original)
        guard candidate.deletingLastPathComponent().standardizedFileURL.path == url.deletingLastPathComponent().standardizedFileURL.path,
              candidate.pathExtension == url.pathExtension else { return false }
        let base = url.deletingPathExtension().lastPathComponent, name = candidate.deletingPathExtension().lastPathComponent
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
        let backups = ((try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? [])
            .filter { name in name.hasPrefix(base + "~") && !StoreFiles.sidecarSuffixes.contains { name.hasSuffix($0) } }.sorted()
        throw MigrationError(.swap, "the plan journal \(path) beside \(store) is damaged (empty, cut short, or naming a file outside the store's folder): a migration may have stopped half way, and the store may be between two versions; nothing was changed or deleted on its word"
                             + (backups.isEmpty ? "; no backup of the store is beside it" : "; backups beside the store: \(backups.joined(separator: ", "))"),
                             fix: "check the store with `chrysalis inspect`; if it is not the version you want, put its backup in its place (with the backup's -wal, if any); then delete \(path)")
    }

    /// The original's backup when a plan a crash interrupted will be undone by the next run (the
    /// store is not at the target): what that run will start from. Reads only.
    static func pendingOriginal(store: String) -> String? {
        guard let record = record(for: store), FileManager.default.fileExists(atPath: record.original) else { return nil }
        let target = record.targetHashes.compactMapValues { Data(base64Encoded: $0) }
        let current = try? PersistentStore.open(at: store).metadata().versionHashes
        return current == target ? nil : record.original
    }

    /// Finishes or undoes a plan a crash interrupted: `nil` when none was. `currentHashes` reads
    /// the store's entity hashes (nil when it cannot be read as a store).
    static func recover(store: String, currentHashes: () -> [String: Data]?) throws -> Recovery? {
        let path = path(for: store)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        try requireReadable(store: store)
        guard let record = record(for: store) else { return nil }
        let target = record.targetHashes.compactMapValues { Data(base64Encoded: $0) }
        let current = currentHashes()
        if StoreFiles.paths(of: record.original).allSatisfy({ !FileManager.default.fileExists(atPath: $0) }) {
            // No backup: a restore that finished (the store is the original again), the plan's
            // end (the store at the target), or a backup someone deleted, which is said as it is.
            if current == target {
                try end(store: store)
                return .finished(target: record.targetVersion, backup: nil)
            }
            if let source = record.sourceHashes?.compactMapValues({ Data(base64Encoded: $0) }), current != source {
                throw MigrationError(.swap, "a migration from \(record.sourceVersion) to \(record.targetVersion) stopped half way and the original's backup \(record.original) is gone: \(store) is between the two versions and cannot be put back",
                                     fix: "restore the store from a backup of your own, or delete \(path) and migrate the store from the version it is at (`chrysalis inspect` names it)")
            }
            try end(store: store)
            return .restored(version: record.sourceVersion)
        }
        if current == target {
            if !record.keepsBackup { for path in StoreFiles.paths(of: record.original) { unlink(path) } }
            try end(store: store)
            return .finished(target: record.targetVersion, backup: record.keepsBackup ? record.original : nil)
        }
        try restore(store: store, from: record.original)
        try end(store: store)
        return .restored(version: record.sourceVersion)
    }

    /// Puts the original back in place of whatever the store is now. The store's own sidecars go
    /// first (a `-wal` must never meet another database's main file), then the original's main
    /// file takes the name, then its `-wal`; each act checks before it acts, so a restore cut
    /// short is finished by the next run.
    static func restore(store: String, from backup: String) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: backup) {
            for path in StoreFiles.sidecars(of: store) { unlink(path) }
            guard rename(backup, store) == 0 else { throw failure("move the original \(backup) back to \(store)") }
        }
        for suffix in StoreFiles.sidecarSuffixes where manager.fileExists(atPath: backup + suffix) && !manager.fileExists(atPath: store + suffix) {
            guard rename(backup + suffix, store + suffix) == 0 else { throw failure("move \(backup + suffix) back") }
        }
        try StoreSwap.syncDirectory(of: store)
    }

    private static func failure(_ action: String) -> MigrationError {
        MigrationError(.swap, "could not \(action): \(String(cString: strerror(errno)))",
                       fix: "check the directory's permissions and free space, then run the migration again: it puts the original back first")
    }
}
