import Foundation
import ObjectModel

#if canImport(Glibc)
    import Glibc
#endif

/// The other processes that have a store's files open, read from `/proc/<pid>/fd`. A file is
/// known by its device and inode, not by the path text a descriptor's link shows: an app may hold
/// the store through a hard link in another folder or through a bind mount of its folder (a
/// container's view of a volume), and the path it sees is not ours. `stat` on a descriptor's link
/// reaches the file without opening it (a probe that opened the store's files and closed them
/// would drop this process's own SQLite locks on them, POSIX locks being per process). Processes
/// of other users cannot be read there without privileges, as by `lsof`; one holding a WAL store
/// open is still found by SQLite's own lock on the `-shm` file (``sharedMemoryHolder(of:)``).
package enum StoreHolders {
    /// A process with one of the store's files open.
    package struct Holder: Equatable, Sendable {
        package var pid: Int32
        package var command: String
        /// Which of the store's files it has open (`Books.sqlite-wal`).
        package var file: String
    }

    /// Whether this process has any of the store's files open (a connection of its own). Then
    /// no file of the store may be opened and closed outside SQLite: closing any descriptor of a
    /// file drops every POSIX lock this process holds on it, SQLite's included.
    package static func thisProcessHolds(_ store: String) -> Bool {
        let files = identities(of: store)
        guard let descriptors = entries(of: "/proc/self/fd") else { return true }
        return descriptors.contains { identity(at: "/proc/self/fd/\($0)").map { files[$0] != nil } ?? false }
    }

    /// Every other process with the store, its `-wal` or its `-shm` open, under any name.
    package static func holders(of store: String) -> [Holder] {
        let files = identities(of: store)
        guard !files.isEmpty else { return [] }
        let me = getpid()
        guard let processes = entries(of: "/proc") else { return [] }
        var found: [Holder] = []
        for entry in processes {
            guard let pid = Int32(entry), pid != me else { continue }
            let directory = "/proc/\(entry)/fd"
            guard let descriptors = entries(of: directory) else { continue }
            for descriptor in descriptors {
                guard let id = identity(at: "\(directory)/\(descriptor)"), let file = files[id] else { continue }
                // The name the holder opened it by, when it differs from ours: a hard link or a mount.
                let seen =
                    link(at: "\(directory)/\(descriptor)").map {
                        TerminalText.oneLine(($0 as NSString).lastPathComponent)
                    } ?? file
                found.append(
                    Holder(pid: pid, command: command(of: entry), file: seen == file ? file : "\(file) (as \(seen))"))
                break
            }
        }
        if let pid = sharedMemoryHolder(of: store), !found.contains(where: { $0.pid == pid }) {
            found.append(
                Holder(
                    pid: pid, command: command(of: "\(pid)"),
                    file: "\((StoreFiles.shm(of: store) as NSString).lastPathComponent) (SQLite's lock on it)"))
        }
        return found.sorted { $0.pid < $1.pid }
    }

    /// A process with a connection to the WAL store open, whoever it runs as: every connection
    /// holds a shared lock on the `-shm` file's "dead man switch" byte for as long as it is open
    /// (sqlite3.c: `UNIX_SHM_DMS`, byte 128, after the eight lock bytes from 120), idle or not,
    /// and `F_GETLK` shows any process's lock to whoever can open the file, where `/proc/<pid>/fd`
    /// of another user's process cannot be read. Not probed while this process holds the store:
    /// closing the probe's descriptor would drop this process's own locks on the file.
    private static func sharedMemoryHolder(of store: String) -> pid_t? {
        guard !thisProcessHolds(store) else { return nil }
        let descriptor = open(StoreFiles.shm(of: store), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 128
        probe.l_len = 1
        guard fcntl(descriptor, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK), probe.l_pid > 0 else {
            return nil
        }
        return probe.l_pid
    }

    /// How many other processes' open files this process cannot read (another user's, when it
    /// runs unprivileged): a holder among them is seen only by a lock it holds.
    package static func unreadableProcesses() -> Int {
        let me = getpid()
        return (entries(of: "/proc") ?? []).filter { entry in
            guard let pid = Int32(entry), pid != me else { return false }
            return access("/proc/\(entry)/fd", R_OK | X_OK) != 0
        }.count
    }

    /// A file's device and inode.
    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// The store's files that exist, by identity, each with its name.
    private static func identities(of store: String) -> [FileIdentity: String] {
        var files: [FileIdentity: String] = [:]
        for path in StoreFiles.paths(of: store) {
            if let id = identity(at: path) { files[id] = (path as NSString).lastPathComponent }
        }
        return files
    }

    /// The identity of the file at `path`, following links (a descriptor's link in `/proc`
    /// reaches its file even when no name leads there any more); nil when there is none.
    private static func identity(at path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The names in a directory, without `.` and `..`; nil when it cannot be read. Plain
    /// `readdir`, not `FileManager`: a scan reads a few hundred of these directories and links,
    /// and `migrate` makes it before every write, so it must cost little beside a step that only
    /// adds an attribute (`chrysalis-bench --scenario add-attribute`, whose goal is milliseconds).
    private static func entries(of directory: String) -> [String]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Where the symbolic link at `path` points; nil when it is not one or is gone.
    private static func link(at path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, Int(PATH_MAX))
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// A process's command line, shortened, for a message.
    private static func command(of pid: String) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else {
            return "unknown"
        }
        var words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        words[0] = (words[0] as NSString).lastPathComponent
        let line = words.joined(separator: " ").split(whereSeparator: \.isNewline).joined(separator: " ")
        let shown = TerminalText.oneLine(line)
        return shown.count > 60 ? String(shown.prefix(59)) + "…" : shown
    }
}

extension StoreFiles {
    /// Whether the store is in WAL mode, by its header's read and write versions (bytes 18 and
    /// 19 are 2 in WAL mode, 1 with a rollback journal); nil when the header cannot be read, or
    /// while this process holds the store (closing a descriptor of it would drop its locks).
    package static func isWAL(_ store: String) -> Bool? {
        guard !StoreHolders.thisProcessHolds(store) else { return nil }
        let descriptor = open(store, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var versions: [UInt8] = [0, 0]
        guard pread(descriptor, &versions, 2, 18) == 2 else { return nil }
        return versions == [2, 2]
    }
}
