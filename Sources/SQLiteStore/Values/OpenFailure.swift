internal import GRDBSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Why SQLite could not open a file, found from the file system.
///
/// SQLite answers every such failure with one code (`SQLITE_CANTOPEN`, "unable to open database
/// file"), whether the path is too long, its folder missing, read-only or closed to the user, or
/// the file itself unreadable; the user needs to know which, so this looks.
public enum OpenFailure {
    /// The problem and fix for a store at `path` SQLite could not open, or nil when nothing
    /// the file system shows explains it.
    static func cause(path: String) -> (problem: String, fix: String)? {
        let bytes = path.utf8.count
        let limit = pathLimit
        // SQLite's unix VFS makes a relative path absolute first, so the absolute length counts.
        if bytes >= limit || absoluteLength(path) >= limit {
            return (
                "cannot be opened: its path is \(max(bytes, absoluteLength(path))) bytes, and SQLite accepts at most \(limit - 1)",
                "move the store, or link its folder, to a shorter path"
            )
        }
        let folder = parentFolder(of: path)
        var info = stat()
        guard stat(folder, &info) == 0 else {
            return ("cannot be opened: its folder \(folder) does not exist", "create the folder, or check the path")
        }
        if stat(path, &info) != 0 { return cannotCreate(inExisting: folder) }
        if info.st_mode & S_IFMT == S_IFDIR {
            return ("cannot be opened: it is a folder", "give the store's file, not its folder")
        }
        // SQLite makes a `-journal`, or a `-wal` and `-shm`, beside a store it opens.
        if let exhausted = volumeExhausted(at: folder) {
            return ("cannot be opened: SQLite makes its files beside it, and " + exhausted.problem, exhausted.fix)
        }
        if access(path, R_OK) != 0 {
            return (
                "cannot be opened: the file's mode \(String(info.st_mode & 0o7777, radix: 8)) does not let this user (uid \(getuid())) read it",
                "run as the file's owner, or make it readable"
            )
        }
        return nil
    }

    /// Why a file or folder cannot be made in `folder` or below it, judged at the nearest folder
    /// that exists; nil when nothing the file system shows explains it.
    ///
    /// - Parameter folder: The folder to make something in; it need not exist yet.
    /// - Returns: The problem (after "cannot be created: ") and its fix.
    public static func cannotCreate(in folder: String) -> (problem: String, fix: String)? {
        var existing = folder
        var info = stat()
        while stat(existing, &info) != 0, existing != "/", existing != "." {
            existing = parentFolder(of: existing)
        }
        return cannotCreate(inExisting: existing)
    }

    /// Why no file can be made on the volume holding `folder` whatever its permissions: no
    /// inode left (a volume of many small files, a tmpfs), or no byte. Nil when it has both.
    ///
    /// - Parameter folder: A folder on the volume.
    /// - Returns: The problem (after "cannot be created: ") and its fix.
    public static func volumeExhausted(at folder: String) -> (problem: String, fix: String)? {
        var volume = statvfs()
        guard statvfs(folder, &volume) == 0 else { return nil }
        if volume.f_files > 0, volume.f_favail == 0 {
            return (
                "its volume has no inode left for another file (`df -i \(folder)`), though bytes may be free",
                "remove files on that volume, or copy the store to another volume and work there"
            )
        }
        if volume.f_bavail == 0 {
            return ("its volume is full (`df \(folder)`)", "free space on that volume and try again")
        }
        return nil
    }

    /// Why a file cannot be made in `folder`, which exists.
    private static func cannotCreate(inExisting folder: String) -> (problem: String, fix: String)? {
        if let exhausted = volumeExhausted(at: folder) {
            return ("cannot be created: " + exhausted.problem, exhausted.fix)
        }
        var volume = statvfs()
        if statvfs(folder, &volume) == 0, volume.f_flag & UInt(ST_RDONLY) != 0 {
            return (
                "cannot be created: its folder \(folder) is on a read-only volume",
                "give a folder on a writable volume (or remount this one read-write)"
            )
        }
        if access(folder, W_OK | X_OK) != 0 {
            return (
                "cannot be created: this user (uid \(getuid())) may not write in its folder \(folder)",
                "give a folder this user can write in, or run as its owner"
            )
        }
        return nil
    }

    /// The longest path SQLite's default VFS accepts, its terminating zero included.
    private static var pathLimit: Int {
        Int(sqlite3_vfs_find(nil)?.pointee.mxPathname ?? 512)
    }

    private static func absoluteLength(_ path: String) -> Int {
        guard !path.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return path.utf8.count }
        defer { free(cwd) }
        return strlen(cwd) + 1 + path.utf8.count
    }

    private static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
