import Foundation
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// The free space a step needs, estimated and checked before the step writes anything, so a
/// volume too small is refused at once with the numbers instead of failing half way through
/// (which would roll back, but only after all the work). The same estimate names the space
/// needed when the disk fills up anyway (another process may be writing to it too).
package struct SpaceCheck: Sendable {
    /// What the step will write beside (or into) the store.
    package enum Work: Sendable {
        /// The step's SQL in one transaction on the store: a journal of a few pages (of the whole
        /// store when rows are rewritten: entities renumbered, tables rebuilt), the rebuilt
        /// tables written anew beside the old ones until the commit frees them, and a byte copy
        /// of the store first when a backup is kept.
        case alterInPlace(backup: Bool, rewritesRows: Bool = false, rebuilds: Bool = false)
        /// A new store built by mapping models: about the source's size, plus the association
        /// table on disk (source row → destination row, for every row).
        case newStore(rows: Int)
    }

    /// Bytes the step needs, at a rough estimate that errs on the generous side.
    package let needed: Int64
    /// What makes up `needed`, in words, for the error message.
    package let reason: String

    /// Estimates what `work` needs for the store at `store`.
    package init(_ work: Work, store: String) {
        let storeBytes = Int64(StoreFiles.bytes(of: store))
        let slack: Int64 = 1 << 20
        switch work {
        case .alterInPlace(let backup, let rewritesRows, let rebuilds):
            needed =
                slack + (backup ? storeBytes : 0) + (rewritesRows || rebuilds ? storeBytes : 0)
                + (rebuilds ? storeBytes : 0)
            reason = [
                backup ? "a byte copy of the store as its backup (\(Self.format(storeBytes)))" : nil,
                rewritesRows || rebuilds
                    ? "a journal of the rows it rewrites (up to \(Self.format(storeBytes)))" : "the step's journal",
                rebuilds
                    ? "the rebuilt tables beside the old ones until the commit (up to \(Self.format(storeBytes)))"
                    : nil,
            ]
            .compactMap { $0 }.joined(separator: " and ")
        case .newStore(let rows):
            let associations = Int64(rows) * 48
            needed = storeBytes + associations + slack
            reason =
                """
                a new store of about the source's size (\(Self.format(storeBytes))) and the association table \
                (\(Self.format(associations)))
                """
        }
    }

    private init(needed: Int64, reason: String) {
        (self.needed, self.reason) = (needed, reason)
    }

    /// What a whole plan needs at its most demanding step, checked before its first write, so
    /// that steps 1–3 never run only for step 4 to be found not to fit: `steps` are each step's
    /// own need, in order, with its name. Later steps' stores are taken to be the store's size; a
    /// plan that keeps its original keeps it on disk throughout.
    static func plan(steps: [(work: SpaceCheck, name: String)], store: String, keepsOriginal: Bool) -> SpaceCheck {
        let storeBytes = Int64(StoreFiles.bytes(of: store))
        var worst = SpaceCheck(needed: 0, reason: "")
        for (index, step) in steps.enumerated() {
            var work = step.work
            if index > 0 && keepsOriginal {
                work = SpaceCheck(
                    needed: work.needed + storeBytes,
                    reason: work.reason + ", while the original is kept (\(format(storeBytes)))")
            }
            if work.needed > worst.needed {
                worst = SpaceCheck(
                    needed: work.needed, reason: "its step \(index + 1), \(step.name), needs " + work.reason)
            }
        }
        return worst
    }

    /// Throws when the volume holding `store` has less than `needed` bytes free.
    package func require(store: String, step: String) throws {
        try require(store: store, for: "the step \(step)")
    }

    /// Throws when the volume holding `store` has less than `needed` bytes free for `what` (`the
    /// step A → B`, `the plan A → C (3 steps)`).
    func require(store: String, for what: String) throws {
        try Self.requireFileSizeLimit(store: store, for: what)
        try Self.requireFreeInodes(store: store, for: what)
        guard let free = Self.freeBytes(near: store), free < needed else { return }
        throw MigrationError(
            .noSpace,
            """
            not enough free space for \(what): it needs about \(Self.format(needed)) beside \(store) (\(reason)), \
            and the volume has \(Self.format(free)) free
            """,
            fix:
                """
                free at least \(Self.format(needed - free)) on that volume, or copy the store to a larger volume \
                and migrate it there
                """
        )
    }

    /// A process's file size limit (`ulimit -f`, RLIMIT_FSIZE) below the largest file a step
    /// writes (a backup or new store of about the store's size) would stop it half way: the
    /// kernel refuses the write, or kills the process with SIGXFSZ. Refused before any work,
    /// naming the limit.
    static func requireFileSizeLimit(store: String, for what: String) throws {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return }
        let largest = Int64(StoreFiles.bytes(of: store)) + (1 << 20)
        guard Int64(clamping: limit.rlim_cur) < largest else { return }
        throw MigrationError(
            .noSpace,
            """
            \(what) writes files of about \(format(largest)) (a backup or a new store the size of \(store)), and \
            this process may write files of at most \(format(Int64(clamping: limit.rlim_cur))) (its file size \
            limit, `ulimit -f`)
            """,
            fix: "raise the limit (`ulimit -f unlimited`, or ask whoever set it), then run again")
    }

    /// The most files a step has beside the store at once: the lock, the plan journal, the
    /// backup marker, the backup and its `-wal`, the work store, the new store and their
    /// journals, the swap journal.
    static let filesAtOnce = 10

    /// A volume with bytes free but no inode left (a tmpfs or an ext4 volume of many small
    /// files) fails the step's first new file with "No space left on device": refused before
    /// any work, naming inodes, not bytes.
    static func requireFreeInodes(store: String, for what: String) throws {
        guard let inodes = freeInodes(near: store), inodes < filesAtOnce else { return }
        throw MigrationError(
            .noSpace,
            """
            not enough free inodes for \(what): it makes up to \(filesAtOnce) files beside \(store), and its \
            volume can hold only \(inodes) more (`df -i` shows its inodes; bytes are not what is short)
            """,
            fix: "remove files on that volume, or copy the store to another volume and migrate it there")
    }

    /// Inodes an unprivileged writer may still take on the volume holding `path`; nil when
    /// unknown or when the volume has no fixed number of them (btrfs reports none).
    static func freeInodes(near path: String) -> Int? {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var info = statvfs()
        guard statvfs(directory, &info) == 0, info.f_files > 0 else { return nil }
        return Int(clamping: info.f_favail)
    }

    /// `error` as the step should report it: a full disk names what the step needed.
    func explain(_ error: Error, store: String, step: String) -> Error {
        Self.isFullDisk(error) ? fullDiskError(store: store, step: step, underlying: error) : error
    }

    /// The error for a disk that filled up during the step, naming what the step needed.
    private func fullDiskError(store: String, step: String, underlying: Error) -> MigrationError {
        if let inodes = Self.freeInodes(near: store), inodes == 0 {
            return MigrationError(
                .noSpace,
                """
                the volume ran out of inodes during the step \(step): it cannot hold another file beside \(store), \
                though bytes are free (`df -i` shows its inodes); the step rolled back and its partial files were \
                removed (\(underlying))
                """,
                fix: "remove files on that volume, or copy the store to another volume and migrate it there")
        }
        if let temporary = temporaryFolderFilled(store: store) { return temporary.error(step: step, underlying) }
        let free = Self.freeBytes(near: store)
        let shown = free.map { ", and \(Self.format($0)) are free now that they are gone" } ?? ""
        let more = free.map { needed - $0 } ?? needed
        return MigrationError(
            .noSpace,
            """
            the disk filled up during the step \(step): it needs about \(Self.format(needed)) beside \(store) \
            (\(reason)); the step rolled back and its partial files were removed\(shown) (\(underlying))
            """,
            fix: more > 0
                ? "free at least \(Self.format(more)) more on that volume and run the migration again"
                : "something else is writing to that volume: make room for \(Self.format(needed)) and run the migration again"
        )
    }

    /// SQLite's temporary folder, when it is on another volume than the store's and that volume
    /// is the one short of space: the store's has room for the step, it has less than the store.
    private func temporaryFolderFilled(store: String) -> TemporaryFolderFull? {
        let folder = SQLiteTemporaryFolder.current()
        var storeVolume = stat(), folderVolume = stat()
        let directory = URL(fileURLWithPath: store).deletingLastPathComponent().path
        guard stat(directory, &storeVolume) == 0, stat(folder.path, &folderVolume) == 0,
            storeVolume.st_dev != folderVolume.st_dev,
            let storeFree = Self.freeBytes(near: store), storeFree >= needed,
            let folderFree = Self.freeBytes(near: folder.path + "/."),
            folderFree < Int64(StoreFiles.bytes(of: store)) + (1 << 20)
        else { return nil }
        return TemporaryFolderFull(folder: folder.path, source: folder.source, free: folderFree, store: store)
    }

    /// SQLite's temporary folder filled during a step, while the store's volume had room.
    private struct TemporaryFolderFull {
        var folder: String, source: String, free: Int64, store: String

        func error(step: String, _ underlying: Error) -> MigrationError {
            MigrationError(
                .noSpace,
                """
                SQLite's temporary folder \(folder) (\(source)), where it sorts what does not fit in memory (an index build), filled up \
                during the step \(step): \(SpaceCheck.format(free)) free there, while the store's own volume has \
                room; the step rolled back and its partial files were removed (\(underlying))
                """,
                fix:
                    """
                    free space there, or point SQLITE_TMPDIR at a folder on a volume with about \
                    \(SpaceCheck.format(Int64(StoreFiles.bytes(of: store)))) free (the store's size), and run the \
                    migration again
                    """
            )
        }
    }

    /// Whether `error` says the disk (or SQLite's page limit) is full.
    static func isFullDisk(_ error: Error) -> Bool {
        if let error = error as? StoreError { return error.kind == .full }
        if let error = error as? MigrationError { return error.kind == .noSpace }
        let error = error as NSError
        return (error.domain == NSPOSIXErrorDomain && error.code == Int(ENOSPC))
            || (error.domain == NSCocoaErrorDomain && error.code == NSFileWriteOutOfSpaceError)
            || (error.userInfo[NSUnderlyingErrorKey] as? Error).map(isFullDisk) == true
    }

    /// Free bytes for an unprivileged writer on the volume holding `path`; `nil` if unknown.
    static func freeBytes(near path: String) -> Int64? {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// `12.3 MB` style, in decimal units as `df -H` shows them: how every message says a size.
    package static func format(_ bytes: Int64) -> String {
        let units = ["bytes", "kB", "MB", "GB", "TB"]
        var value = Double(bytes), unit = 0
        while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(bytes) bytes" : String(format: value < 10 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }
}
