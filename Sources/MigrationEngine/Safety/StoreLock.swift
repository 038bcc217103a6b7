import Foundation
import ObjectModel

#if canImport(Glibc)
    import Glibc
#endif

/// An advisory lock beside a store (`Name.sqlite.chrysalis-lock`) that keeps a second
/// migration (from `chrysalis migrate` or a console) off it. The kernel drops the lock when the
/// process dies, so a crash never leaves the store locked; the file records who holds it (pid,
/// the holder as the caller names it, since when), so a refusal can name the other process.
package final class StoreLock {
    private let descriptor: Int32
    let path: String

    /// How the lock file names a process whose caller gives no better name: the process's own.
    static let thisProcess = ProcessInfo.processInfo.processName

    /// Locks `store` for `holder`: how the lock file names this process to another that finds
    /// the store locked (the command line, as `chrysalis` gives it).
    init(store: String, holder: String) throws {
        try Self.requireRoomForOwnNames(store)
        path = Self.path(of: store)
        try Self.requireWritableDirectory(of: store)
        try Self.requireWritableStore(store)
        while true {
            // Never through a link or into a file of someone else's (``OwnFiles``).
            let descriptor = try OwnFiles.openOrCreate(path)
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                throw Self.lockedError(store: store, holder: Self.recordedHolder(path))
            }
            // The holder before us unlinks the file as it lets go: a lock on an unlinked file
            // guards nothing, so take it again on the file now at the path.
            if Self.isSameFile(descriptor, path) {
                self.descriptor = descriptor
                break
            }
            close(descriptor)
        }
        let shown = holder.count > 160 ? String(holder.prefix(157)) + "…" : holder
        let note = "pid \(getpid()) (\(shown)) since \(Self.utcTimestamp())\n"
        _ = ftruncate(descriptor, 0)
        _ = note.withCString { write(descriptor, $0, strlen($0)) }
    }

    deinit {
        // Only the file this lock holds: whatever has since taken the name stays.
        if Self.isSameFile(descriptor, path) { unlink(path) }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Now in UTC as ISO 8601 (`2026-11-26T05:49:52Z`), by the C library: an
    /// `ISO8601DateFormatter` sets up ICU for each migration, a visible share of a step that only
    /// adds an attribute (`perf` on `chrysalis-bench --scenario add-attribute`, whose goal is
    /// milliseconds).
    static func utcTimestamp() -> String {
        var now = time(nil), parts = tm()
        gmtime_r(&now, &parts)
        var text = [CChar](repeating: 0, count: 32)
        let length = strftime(&text, text.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: text.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Who is migrating `store` right now (pid, command, since when), or `nil` when nobody is.
    /// Lets a console refuse to open a store another process is migrating, before any work.
    package static func holder(of store: String) -> String? {
        let path = path(of: store)
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return nil
        }
        return recordedHolder(path)
    }

    /// The error a second migration gets, naming the one that holds the store.
    package static func lockedError(store: String, holder: String) -> MigrationError {
        MigrationError(
            .locked, "\(store) is being migrated by another process: \(holder)",
            fix: "wait for it to finish, or stop that process (its migration rolls back), then run again")
    }

    static func path(of store: String) -> String { store + ".chrysalis-lock" }

    /// The most bytes the tool adds to the store's name for a file of its own: the plan
    /// journal's temporary `.Name.chrysalis-plan.PID.N` (1 + 16 + 1 + 7 + 1 + 10).
    static let longestOwnNameSuffix = 36

    /// A folder entry holds 255 bytes: a store whose name leaves no room for the tool's own
    /// files beside it is refused before any work, rather than failing at whichever file comes
    /// first, perhaps half way.
    static func requireRoomForOwnNames(_ store: String) throws {
        let name = URL(fileURLWithPath: store).lastPathComponent
        let limit = 255 - longestOwnNameSuffix
        guard name.utf8.count > limit else { return }
        throw MigrationError(
            .notWritable,
            """
            cannot migrate \(TerminalText.oneLine(store)): its name is \(name.utf8.count) bytes long, and the \
            files a migration makes beside it (its lock, journal, backup and work files, named after it with up to \
            \(longestOwnNameSuffix) more bytes) would pass the 255 bytes a folder entry holds
            """,
            fix:
                """
                rename the store to a name of at most \(limit) bytes (the app finds it by its own path, so rename \
                it back after), then run again
                """
        )
    }

    /// A migration writes beside the store (lock, new store, backup), so a directory it cannot
    /// write to is refused before any work, by its mode bits too: root ignores them, but a
    /// directory made read-only says what its owner wants.
    static func requireWritableDirectory(of store: String) throws {
        let directory = URL(fileURLWithPath: store).deletingLastPathComponent().path
        var info = statvfs()
        let readOnlyVolume = statvfs(directory, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0
        let permissions =
            ((try? FileManager.default.attributesOfItem(atPath: directory))?[.posixPermissions] as? NSNumber)?.intValue
            ?? 0o755
        guard readOnlyVolume || permissions & 0o222 == 0 || access(directory, W_OK) != 0 else { return }
        throw MigrationError(
            .notWritable,
            """
            cannot migrate \(store): its directory \(directory) is read-only \
            (\(readOnlyVolume ? "a read-only volume" : "mode \(String(permissions, radix: 8))"))
            """,
            fix:
                """
                a migration writes its new store and backup beside the store: make the directory writable (chmod \
                u+w), or copy the store to a writable directory and migrate it there
                """
        )
    }

    /// A store whose own mode forbids writing is the owner's word too: refused before any work,
    /// not half way through (its migrated copy would inherit the mode and refuse the writes).
    static func requireWritableStore(_ store: String) throws {
        let permissions =
            ((try? FileManager.default.attributesOfItem(atPath: store))?[.posixPermissions] as? NSNumber)?.intValue
            ?? 0o644
        guard permissions & 0o222 == 0 else { return }
        throw MigrationError(
            .notWritable, "cannot migrate \(store): the store is read-only (mode \(String(permissions, radix: 8)))",
            fix: "make it writable (chmod u+w), or try the migration on a copy with --dry-run")
    }

    private static func recordedHolder(_ path: String) -> String {
        let text =
            OwnFiles.contents(of: path).map { TerminalText.oneLine(String(decoding: $0.prefix(400), as: UTF8.self)) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return text.isEmpty ? "unknown (it is still starting)" : text
    }

    private static func isSameFile(_ descriptor: Int32, _ path: String) -> Bool {
        var open = stat(), named = stat()
        guard fstat(descriptor, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }
}
