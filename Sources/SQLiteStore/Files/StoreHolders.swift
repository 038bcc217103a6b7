import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The other processes that have a store's files open, read from `/proc/<pid>/fd`: each open
/// descriptor is a link to its file, and reading a link opens nothing (a probe that opened the
/// store's files and closed them would drop this process's own SQLite locks on them, POSIX locks
/// being per process). Processes of other users cannot be read without privileges and go
/// unseen, as they would by `lsof`.
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
        let files = Set(StoreFiles.paths(of: store).map(resolved))
        guard let descriptors = entries(of: "/proc/self/fd") else { return true }
        return descriptors.contains { link(at: "/proc/self/fd/\($0)").map(files.contains) ?? false }
    }

    /// Every other process with the store, its `-wal` or its `-shm` open.
    package static func holders(of store: String) -> [Holder] {
        let files = Set(StoreFiles.paths(of: store).map(resolved))
        let me = getpid()
        guard let processes = entries(of: "/proc") else { return [] }
        var found: [Holder] = []
        for entry in processes {
            guard let pid = Int32(entry), pid != me else { continue }
            let directory = "/proc/\(entry)/fd"
            guard let descriptors = entries(of: directory) else { continue }
            for descriptor in descriptors {
                guard let target = link(at: "\(directory)/\(descriptor)"), files.contains(target) else { continue }
                found.append(Holder(pid: pid, command: command(of: entry), file: (target as NSString).lastPathComponent))
                break
            }
        }
        return found.sorted { $0.pid < $1.pid }
    }

    /// The names in a directory, without `.` and `..`; nil when it cannot be read. Plain
    /// `readdir`, not `FileManager`: a scan reads a few hundred of these directories and links,
    /// and `migrate` makes it before every write (issue 32: about 1 ms a scan this way).
    private static func entries(of directory: String) -> [String]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Where the symbolic link at `path` points; nil when it is not one or is gone.
    private static func link(at path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, Int(PATH_MAX))
        guard count >= 0 else { return nil }
        buffer[count] = 0
        return String(cString: buffer)
    }

    /// The path a file's link in `/proc` shows: absolute, with symbolic links resolved.
    private static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let directory = (absolute as NSString).deletingLastPathComponent
        let real = realpath(directory, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) } ?? directory
        return real + "/" + (absolute as NSString).lastPathComponent
    }

    /// A process's command line, shortened, for a message.
    private static func command(of pid: String) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else { return "unknown" }
        var words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        words[0] = (words[0] as NSString).lastPathComponent
        let line = words.joined(separator: " ").split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > 60 ? String(line.prefix(59)) + "…" : line
    }
}
