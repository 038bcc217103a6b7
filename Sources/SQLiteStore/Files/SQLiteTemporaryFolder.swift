import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where SQLite writes its temporary files (the sorter of an index build or a large `ORDER BY`
/// spills there once it outgrows its memory): a volume of its own, which can fill while the
/// store's has room.
public enum SQLiteTemporaryFolder {
    /// The folder SQLite's unix VFS picks, in its own order (`unixTempFileDir` in `os_unix.c`):
    /// `SQLITE_TMPDIR`, `TMPDIR`, `/var/tmp`, `/usr/tmp`, `/tmp`, the current folder; the first
    /// that is a folder this process may write in. With where it came from, said for people.
    ///
    /// - Returns: The folder and why it is the one (`from SQLITE_TMPDIR`).
    public static func current() -> (path: String, source: String) {
        let environment = ProcessInfo.processInfo.environment
        let candidates: [(String?, String)] = [
            (environment["SQLITE_TMPDIR"], "from SQLITE_TMPDIR"), (environment["TMPDIR"], "from TMPDIR"),
            ("/var/tmp", "SQLite's default"), ("/usr/tmp", "SQLite's default"), ("/tmp", "SQLite's default"),
        ]
        for case (let path?, let source) in candidates {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, access(path, W_OK | X_OK) == 0 {
                return (path, source)
            }
        }
        return (".", "the current folder, as no other is writable")
    }
}
