import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A command's own folder in the temporary folder, named with its pid (`chrysalis-dry-run-4242-…`,
/// `chrysalis-history-4242-…`): the command removes it however it ends, and a folder a killed
/// run left is removed by the next run that makes one with the same prefix, once no process has
/// that pid.
enum ScratchFolder {
    /// A new folder, private to this user, after removing abandoned ones with `prefix`.
    static func make(prefix: String, in temporary: URL = FileManager.default.temporaryDirectory) throws -> URL {
        removeAbandoned(prefix: prefix, in: temporary)
        let directory = name(prefix: prefix, in: temporary)
        try create(directory)
        return directory
    }

    /// This process's new folder name with `prefix`: the pid, then a UUID.
    static func name(prefix: String, in temporary: URL) -> URL {
        temporary.appendingPathComponent("\(prefix)\(getpid())-\(UUID().uuidString)")
    }

    /// Creates `directory`, private to this user; it must not exist.
    static func create(_ directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    /// Folders with `prefix` whose process is gone (killed before it could remove them).
    static func removeAbandoned(prefix: String, in temporary: URL = FileManager.default.temporaryDirectory) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }
}
