import Foundation
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// Another process writing the store while a migration copies it (an app, a `sqlite3` shell):
/// waited on for a few seconds when it holds SQLite's write lock at the start, and caught before
/// the swap if it wrote anyway, so its changes are never silently left behind in the backup.
///
/// The probe reads SQLite's own POSIX locks with `F_GETLK` instead of opening a connection: a
/// connection of ours would take locks, create `-wal`/`-shm` files and checkpoint on close,
/// changing the very bytes the migration promises not to touch. `F_GETLK` also names the pid.
enum OtherWriters {
    /// Waits up to `timeout` seconds for every other process's write lock on `store` to go;
    /// throws, naming the holder, if one stays.
    static func waitUntilNone(store: String, timeout: Double = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while let holder = writer(of: store) {
            guard Date() < deadline else {
                throw MigrationError(
                    .locked,
                    """
                    \(store) is being written by another process (pid \(holder) holds SQLite's write lock) and \
                    stayed so for \(Int(timeout)) s
                    """,
                    fix: "close the app or sqlite3 shell that has the store open (pid \(holder)), then run again")
            }
            usleep(100_000)
        }
    }

    /// The pid holding SQLite's write lock on `store`, if another process does: the RESERVED
    /// byte of the database (rollback journal) or the WAL write lock in its `-shm` file.
    static func writer(of store: String) -> pid_t? {
        // Opening and closing the store's files while this process has a connection to them
        // would drop that connection's locks; the probe is for a store this process has closed.
        guard !StoreHolders.thisProcessHolds(store) else { return nil }
        // sqlite3.c: PENDING_BYTE 0x40000000, RESERVED_BYTE one past it; WAL_WRITE_LOCK is the
        // first lock byte of the wal-index, at offset 120 of the -shm file.
        return lockHolder(store, offset: 0x4000_0001) ?? lockHolder(StoreFiles.shm(of: store), offset: 120)
    }

    /// What the store's files are on disk: if any of it differs later, something wrote to them.
    /// Inode, size and modification time say most writes, but not all: a commit that rewrites a
    /// page in place keeps the size, and the clock that stamps files ticks every few
    /// milliseconds, so a row inserted in the same tick went unseen (and a plan put its original
    /// back over it). So the fingerprint also holds what SQLite changes on every commit: the main
    /// file's change counter (a rollback-journal store) and the `-wal`'s header, whose salts
    /// change when a commit starts the log again (a WAL store, whose commits otherwise grow it).
    /// Those are read only while this process has none of the store's files open (closing a
    /// descriptor would drop its own SQLite locks); a fingerprint taken then compares by the rest.
    struct Fingerprint: Equatable {
        let files: [[Int]]
        /// The main file's bytes 24–27 and the `-wal`'s first 32 bytes; nil when not read.
        let headers: [UInt8]?

        init(store: String) {
            files = StoreFiles.dataPaths(of: store).map { path in
                var info = stat()
                guard stat(path, &info) == 0 else { return [] }
                return [Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
            }
            headers =
                StoreHolders.thisProcessHolds(store)
                ? nil
                : Self.bytes(of: store, at: 24, count: 4) + Self.bytes(of: StoreFiles.wal(of: store), at: 0, count: 32)
        }

        static func == (lhs: Fingerprint, rhs: Fingerprint) -> Bool {
            guard lhs.files == rhs.files else { return false }
            guard let left = lhs.headers, let right = rhs.headers else { return true }
            return left == right
        }

        /// Whether the store was written since this fingerprint was taken.
        func changed(store: String) -> Bool { Fingerprint(store: store) != self }

        /// `count` bytes of the file at `path` from `offset`; empty when there is no such file.
        private static func bytes(of path: String, at offset: Int, count: Int) -> [UInt8] {
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { return [] }
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: count)
            let read = pread(descriptor, &buffer, count, off_t(offset))
            return Array(buffer.prefix(max(read, 0)))
        }
    }

    /// Another process wrote to the store during a step. Its writes are committed (SQLite told
    /// it so): the step is not swapped in over them, and a plan does not put its original back
    /// over them either (``StoreState/keptOtherWrites(version:done:total:backup:)``).
    static func foreignWrite(store: String) -> MigrationError {
        MigrationError(
            .otherWriter,
            """
            \(store) was written by another process while it was being migrated; the migrated copy would miss \
            those changes, so it was not swapped in
            """,
            fix: "quit every app using the store, then run the migration again")
    }

    /// Throws ``foreignWrite(store:)`` when the store, read on `connection` (in the step's own
    /// transaction, before its first change), no longer holds what the step before left: another
    /// process committed between the two steps, and nothing is to be done over its write.
    static func requireUnchanged(_ connection: StoreConnection, since summary: ContentSummary?, store: String) throws {
        guard let summary, try connection.contentSummary() != summary else { return }
        throw foreignWrite(store: store)
    }

    private static func lockHolder(_ path: String, offset: Int) -> pid_t? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = off_t(offset)
        probe.l_len = 1
        guard fcntl(descriptor, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK) else { return nil }
        return probe.l_pid
    }
}
