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

    /// Writes and syncs the journal (and its directory) before the plan's first write.
    static func begin(_ record: Record, store: String) throws {
        let data = try JSONEncoder().encode(record) + Data("\n".utf8)
        let path = path(for: store)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create \(path)") }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(descriptor) == 0 else { throw failure("write \(path)") }
        try StoreSwap.syncDirectory(of: store)
    }

    /// Removes the journal once the plan is done or undone; the directory is synced so the
    /// removal outlives a crash.
    static func end(store: String) throws {
        unlink(path(for: store))
        try StoreSwap.syncDirectory(of: store)
    }

    /// The journal a run left, if any. One cut short (no final newline) was never synced, so the
    /// plan never began writing.
    static func record(for store: String) -> Record? {
        guard let data = FileManager.default.contents(atPath: path(for: store)), data.last == UInt8(ascii: "\n") else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
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
        guard let record = record(for: store) else {
            unlink(path)
            return nil
        }
        let target = record.targetHashes.compactMapValues { Data(base64Encoded: $0) }
        if ([""] + StoreSwap.sidecars).allSatisfy({ !FileManager.default.fileExists(atPath: record.original + $0) }) {
            // No backup (or a restore that finished): the store is the original.
            try end(store: store)
            return .restored(version: record.sourceVersion)
        }
        if currentHashes() == target {
            if !record.keepsBackup { for suffix in [""] + StoreSwap.sidecars { unlink(record.original + suffix) } }
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
            for suffix in StoreSwap.sidecars { unlink(store + suffix) }
            guard rename(backup, store) == 0 else { throw failure("move the original \(backup) back to \(store)") }
        }
        for suffix in StoreSwap.sidecars where manager.fileExists(atPath: backup + suffix) && !manager.fileExists(atPath: store + suffix) {
            guard rename(backup + suffix, store + suffix) == 0 else { throw failure("move \(backup + suffix) back") }
        }
        try StoreSwap.syncDirectory(of: store)
    }

    private static func failure(_ action: String) -> MigrationError {
        MigrationError(.swap, "could not \(action): \(String(cString: strerror(errno)))",
                       fix: "check the directory's permissions and free space, then run the migration again: it puts the original back first")
    }
}
