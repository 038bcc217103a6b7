import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a file a user names as input (a mapping file, a model's `contents`), known by what it
/// is: a named pipe would block the read forever, a device never ends, and a file of hundreds
/// of megabytes is no model or mapping (Yams took 19 s and 1.4 GB to refuse one of 300 MB).
/// Each gets an error that says what the path is.
public enum InputFile {
    /// The largest input read: the fixtures' largest model or mapping file is about 3.5 MB.
    public static let largest = 64 << 20

    /// The bytes of the regular file at `url` (a link followed), read whole.
    ///
    /// - Parameters:
    ///   - url: The file.
    ///   - what: What the file should be, for errors (`a mapping file`).
    ///   - fix: What to give instead, for errors.
    /// - Returns: The file's bytes.
    /// - Throws: A `ModelFileError` naming what the path is when it is not a regular file, is
    ///   larger than ``largest``, or cannot be read.
    public static func read(_ url: URL, what: String, fix: String) throws -> Data {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            let reason = errno == ENOENT ? "no such file" : "cannot be read (\(String(cString: strerror(errno))))"
            throw ModelFileError(file: url.path, problem: reason, fix: fix)
        }
        if let kind = kind(of: info.st_mode), kind != "a regular file" {
            throw ModelFileError(file: url.path, problem: "is \(kind), not \(what)", fix: fix)
        }
        guard info.st_size <= largest else {
            throw ModelFileError(
                file: url.path,
                problem:
                    "is \(info.st_size / 1_000_000) MB, far larger than \(what) (at most \(largest >> 20) MiB is read)",
                fix: fix)
        }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw ModelFileError(
                file: url.path, problem: "cannot be read (\(String(cString: strerror(errno))))",
                fix: "check the file's owner and mode")
        }
        defer { try? handle.close() }
        return (try? handle.readToEnd()) ?? Data()
    }

    /// What a file of `mode` is, said for people (`a named pipe (FIFO)`); nil when unknown.
    ///
    /// - Parameter mode: A `stat` mode.
    /// - Returns: The kind of file, with its article.
    public static func kind(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return nil
        }
    }
}
