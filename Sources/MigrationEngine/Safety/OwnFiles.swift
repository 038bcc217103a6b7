import Foundation
import ObjectModel
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// The files Chrysalis makes beside a store for itself (lock, journals, the backup marker),
/// made and read so that nothing planted at their names is ever followed or reused: in a folder
/// others can write, a symbolic link at `Books.sqlite.chrysalis-lock` pointing at `/etc/shadow`
/// would otherwise have a migration run as root truncate and overwrite that file. Each is opened
/// relative to the store's open folder, never through a link (`O_NOFOLLOW`), and created only
/// where nothing is (`O_EXCL`); what sits at a name instead is refused, named, and left alone.
enum OwnFiles {
    /// Creates `path` for writing; it must not exist. Throws, naming what sits there, if
    /// anything does.
    static func create(_ path: String, mode: mode_t = 0o600) throws -> Int32 {
        try at(path) { folder, name in
            let descriptor = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            guard descriptor >= 0 else {
                if errno == EEXIST { throw occupied(path) }
                throw failure("create", path)
            }
            return descriptor
        }
    }

    /// Opens `path` for reading and writing, creating it if absent; an existing file is taken
    /// only if it is a plain file of this user's with no other name (a lock a killed run left).
    static func openOrCreate(_ path: String) throws -> Int32 {
        try at(path) { folder, name in
            let descriptor = openat(folder, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                if errno == ELOOP { throw occupied(path) }
                throw failure("create", path)
            }
            var info = stat()
            guard fstat(descriptor, &info) == 0, isOwnPlainFile(info) else {
                close(descriptor)
                throw occupied(path)
            }
            return descriptor
        }
    }

    /// The bytes of `path` if it is a plain file of this user's with no other name; nil when it
    /// is absent or anything else (a link, a device, a file with a second name), which is never
    /// read: a journal planted as a link to another file must not be taken for the tool's own.
    static func contents(of path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, isOwnPlainFile(info), info.st_size <= 1 << 20 else { return nil }
        var data = Data(count: Int(info.st_size))
        let count = data.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return count == Int(info.st_size) ? data : nil
    }

    /// Whether something sits at `path` (a dangling link included).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// A plain file, owned by this process's user, with one name.
    static func isOwnPlainFile(_ info: stat) -> Bool {
        info.st_mode & S_IFMT == S_IFREG && info.st_nlink == 1 && info.st_uid == geteuid()
    }

    /// What sits at `path`, for a message: `a symbolic link to /etc/passwd`, `a file owned by
    /// uid 1001`, `a file with 2 names`, `a directory`.
    static func describe(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "nothing" }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(path, &buffer, Int(PATH_MAX))
            let target =
                count >= 0 ? String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
            return "a symbolic link to \(TerminalText.oneLine(target))"
        case S_IFDIR: return "a directory"
        case S_IFREG:
            if info.st_uid != geteuid() { return "a file owned by uid \(info.st_uid)" }
            if info.st_nlink > 1 { return "a file with \(info.st_nlink) names (a hard link to another file)" }
            return "a file"
        default: return "a special file"
        }
    }

    /// Runs `body` with the folder of `path` open and the name in it.
    private static func at<T>(_ path: String, _ body: (Int32, String) throws -> T) throws -> T {
        let url = URL(fileURLWithPath: path)
        let folder = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw failure("open the folder of", path) }
        defer { close(folder) }
        return try body(folder, url.lastPathComponent)
    }

    private static func occupied(_ path: String) -> MigrationError {
        MigrationError(
            .locked,
            """
            \(TerminalText.oneLine(path)) is a name Chrysalis keeps for its own file, and \(describe(path)) sits \
            there; Chrysalis neither follows nor reuses it, and nothing was written
            """,
            fix:
                "check what it is and who put it there; remove it (`rm` removes a link, not its target), then run again"
        )
    }

    private static func failure(_ action: String, _ path: String) -> MigrationError {
        let code = errno
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if code == ENOSPC || code == EDQUOT, let exhausted = OpenFailure.volumeExhausted(at: folder) {
            return MigrationError(
                .noSpace, "could not \(action) \(TerminalText.oneLine(path)): \(exhausted.problem)", fix: exhausted.fix)
        }
        return MigrationError(
            code == ENOSPC ? .noSpace : .swap,
            "could not \(action) \(TerminalText.oneLine(path)): \(String(cString: strerror(code)))",
            fix: code == ENOSPC ? "free space on that volume and try again" : "check the folder's permissions")
    }
}
