import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock beside a store (`Name.sqlite.chrysalis-lock`) that keeps a second
/// migration off it. The kernel drops the lock when the process dies, so a crash never leaves
/// the store locked; the file records who holds it, for the error message.
final class StoreLock {
    private let descriptor: Int32
    let path: String

    init(store: String) throws {
        path = store + ".chrysalis-lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw MigrationError(.locked, "cannot create the lock file \(path) (\(String(cString: strerror(errno))))",
                                 fix: "check that the store's directory is writable")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            close(descriptor)
            throw MigrationError(.locked, "\(store) is being migrated by another process (\(holder.isEmpty ? "unknown" : holder))",
                                 fix: "wait for it to finish, or stop that process")
        }
        let note = "pid \(getpid()) since \(ISO8601DateFormatter().string(from: Date()))\n"
        _ = ftruncate(descriptor, 0)
        _ = note.withCString { write(descriptor, $0, strlen($0)) }
    }

    deinit {
        unlink(path)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
