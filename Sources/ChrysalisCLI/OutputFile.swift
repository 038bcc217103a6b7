import Foundation
import MigrationEngine

#if canImport(Glibc)
    import Glibc
#endif

/// A file the tool writes at a path a user gives (`check-history --junit PATH`), written as the
/// tool writes its own files: never replacing what is not a regular file of the user's.
///
/// - `-` is standard output.
/// - A new file is made whole beside its name and linked in, so it never replaces a file that
///   appeared meanwhile, and a reader never sees half of it.
/// - A regular file this user owns, with no other name, is replaced the same way, keeping its mode.
/// - A regular file of another user's, or one with hard links, is rewritten in place: its owner,
///   mode and other names stay (as root, a report never takes over another user's file).
/// - A symbolic link is written through, opened by the kernel, which applies
///   `fs.protected_symlinks` in folders others can write.
/// - A terminal, pipe, socket or character device (`/dev/null`, `/dev/stdout`) is written to as
///   it is, never replaced; a block device or a folder is refused.
struct OutputFile {
    /// The path as the user gave it.
    let path: String
    /// What the file is for, in messages (`the JUnit report`).
    let purpose: String

    /// Whether the output is standard output: `-`, or a path that leads to the same file
    /// (`/dev/stdout`), which is then written through standard output's own descriptor, at its
    /// place, never truncated under what else it carries.
    var isStandardOutput: Bool {
        guard path != "-" else { return true }
        var output = stat(), target = stat()
        return fstat(STDOUT_FILENO, &output) == 0 && stat(path, &target) == 0
            && (output.st_dev, output.st_ino) == (target.st_dev, target.st_ino)
    }

    /// Writes `bytes`, or throws an error that names the path, the cause and the fix.
    func write(_ bytes: Data) throws {
        if isStandardOutput {
            StandardStreams.out(String(decoding: bytes, as: UTF8.self))
            return
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { throw failure(errno) }
            return try writeNew(bytes)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG where info.st_uid == geteuid() && info.st_nlink == 1:
            try replace(bytes, mode: info.st_mode & 0o7777)
        case S_IFDIR:
            throw refusal("is a folder")
        case S_IFBLK:
            throw refusal("is a block device (a disk): a report written there would overwrite it")
        default:
            // A link, a file of another's or with other names, a terminal, pipe, socket or device.
            try writeThrough(bytes)
        }
    }

    /// Adds `bytes` at the end of the file (made when it is not there), as a CI system's summary
    /// file asks: what others wrote there stays. A folder or a block device is refused.
    func append(_ bytes: Data) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0o666)
        guard descriptor >= 0 else { throw errno == EISDIR ? refusal("is a folder") : failure(errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(errno) }
        if info.st_mode & S_IFMT == S_IFBLK {
            throw refusal("leads to a block device (a disk): a report written there would overwrite it")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        try writeAll(bytes, to: descriptor)
    }

    /// A new file: written whole under a temporary name in the same folder, then linked to its
    /// name, which fails rather than replace whatever took the name meanwhile.
    private func writeNew(_ bytes: Data) throws {
        let folder = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder),
            isFolder.boolValue
        else {
            throw MigrationError(
                .notWritable, "cannot write \(purpose) to \(path): the folder \(folder) does not exist",
                fix: "create the folder first, or give a path in a folder that exists (or - for standard output)")
        }
        let temporary = try writeTemporary(bytes, mode: 0o666)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else { throw failure(errno) }
    }

    /// A regular file of this user's with one name: replaced whole, keeping its mode.
    private func replace(_ bytes: Data, mode: mode_t) throws {
        let temporary = try writeTemporary(bytes, mode: mode)
        guard fchmodat(AT_FDCWD, temporary, mode, 0) == 0, rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure(code)
        }
    }

    /// The file the path leads to, opened by the kernel and written as it is.
    private func writeThrough(_ bytes: Data) throws {
        // Non-blocking to open: a FIFO no process reads would otherwise wait forever.
        let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            throw errno == ENXIO ? refusal("is a pipe that no process reads") : failure(errno)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(errno) }
        switch info.st_mode & S_IFMT {
        case S_IFBLK: throw refusal("leads to a block device (a disk): a report written there would overwrite it")
        case S_IFREG: guard ftruncate(descriptor, 0) == 0 else { throw failure(errno) }
        default: break
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        try writeAll(bytes, to: descriptor)
        if info.st_mode & S_IFMT == S_IFREG, fsync(descriptor) != 0 { throw failure(errno) }
    }

    /// `bytes` in a new file beside the path (its folder), synced; returns its path.
    private func writeTemporary(_ bytes: Data, mode: mode_t) throws -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let name = ".\((path as NSString).lastPathComponent).\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp"
        let temporary = folder.isEmpty ? name : "\(folder)/\(name)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure(errno) }
        do {
            try writeAll(bytes, to: descriptor)
            guard fsync(descriptor) == 0 else { throw failure(errno) }
            close(descriptor)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        return temporary
    }

    private func writeAll(_ bytes: Data, to descriptor: Int32) throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            let count = rest.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw failure(count < 0 ? errno : ENOSPC) }
            rest = rest.dropFirst(count)
        }
    }

    /// The path is something a report is never written to.
    private func refusal(_ what: String) -> MigrationError {
        MigrationError(
            .notWritable, "cannot write \(purpose) to \(path): it \(what)",
            fix: "give the path of a file (or - for standard output)")
    }

    /// A failed system call, named with its cause.
    private func failure(_ code: Int32) -> MigrationError {
        let cause = String(cString: strerror(code))
        let fix =
            switch code {
            case ENOSPC, EDQUOT: "free space on that volume, or give a path on another"
            case EACCES, EPERM, EROFS: "give a path this user can write (or - for standard output)"
            case ELOOP: "the path is a symbolic link that the kernel will not follow here; give the file's own path"
            default: "give another path (or - for standard output)"
            }
        return MigrationError(.notWritable, "cannot write \(purpose) to \(path): \(cause)", fix: fix)
    }
}
