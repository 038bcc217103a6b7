import Foundation

/// A private copy of a WAL store that cannot be read where it is: its `-wal` holds data, its
/// `-shm` is missing, and its directory cannot be written (a read-only volume or directory), so
/// SQLite can create no `-shm` and would refuse the store — or, opened `immutable`, ignore the
/// `-wal` and show old data. The copy (store and `-wal`) is read instead, and removed when the
/// store is closed.
final class ReadOnlyCopy: Sendable {
    /// The copy's store path.
    let path: String
    private let directory: URL

    /// A copy of `store` when it needs one to be read, else nil.
    static func ifNeeded(for store: String, file: StoreFileCheck) throws -> ReadOnlyCopy? {
        guard file.isWAL, let wal = file.walPath, !FileManager.default.fileExists(atPath: StoreFiles.shm(of: store)),
            !canCreateFiles(beside: store)
        else { return nil }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chrysalis-read-\(UUID().uuidString)")
        let copy = directory.appendingPathComponent(URL(fileURLWithPath: store).lastPathComponent).path
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.copyItem(atPath: store, toPath: copy)
            try FileManager.default.copyItem(atPath: wal, toPath: StoreFiles.wal(of: copy))
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw StoreError(
                .unreadable, path: store,
                """
                is a WAL store on a read-only volume or directory without its -shm, and could not be copied to be \
                read (\(error.localizedDescription))
                """,
                fix: "free space in the temporary directory, or copy the store, its -wal and -shm somewhere writable")
        }
        return ReadOnlyCopy(path: copy, directory: directory)
    }

    private init(path: String, directory: URL) {
        self.path = path
        self.directory = directory
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Whether SQLite could create a `-shm` beside `store`: the volume is writable and so is the
    /// directory (root writes to any directory of a writable volume).
    private static func canCreateFiles(beside store: String) -> Bool {
        let directory = URL(fileURLWithPath: store).deletingLastPathComponent().path
        var info = statvfs()
        if statvfs(directory, &info) == 0, info.f_flag & UInt(ST_RDONLY) != 0 { return false }
        return access(directory, W_OK) == 0
    }
}
