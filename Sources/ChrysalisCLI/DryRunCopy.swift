import Foundation

/// The private copy `migrate --dry-run` works on: the store with its sidecars, writable whatever
/// the original's mode (a read-only store must still be dry-run), in a folder of its own that the
/// command removes however it ends.
enum DryRunCopy {
    /// Copies `store` into `directory`; returns the copy's path.
    static func make(of store: String, in directory: URL) throws -> String {
        let copy = directory.appendingPathComponent(URL(fileURLWithPath: store).lastPathComponent).path
        // The -journal too: a crashed writer's unfinished transaction is rolled back on the copy.
        for suffix in ["", "-wal", "-journal"] where FileManager.default.fileExists(atPath: store + suffix) {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: copy + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: copy + suffix)
        }
        return copy
    }
}
