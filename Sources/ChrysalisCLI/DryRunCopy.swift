import Foundation
import MigrationEngine
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// The private copy `migrate --dry-run` works on: the store with its sidecars, writable whatever
/// the original's mode (a read-only store must still be dry-run), in a folder of its own in the
/// temporary folder that the command removes however it ends. A folder a killed dry run left
/// (named with its pid) is removed by the next one.
struct DryRunCopy {
    /// The copy's folder, and the copy's store path.
    let directory: URL
    let path: String
    /// The store copied.
    let store: String

    /// The folder's name: the prefix, then the pid of the process that owns it.
    private static let prefix = "chrysalis-dry-run-"

    /// Copies `store` into a new folder in the temporary folder. The folder must exist, be
    /// writable and hold the store: each is said with its fix, never as Foundation's raw error.
    init(of store: String) throws {
        self.store = store
        let temporary = FileManager.default.temporaryDirectory
        ScratchFolder.removeAbandoned(prefix: Self.prefix, in: temporary)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: temporary.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw MigrationError(
                .notFound,
                "the temporary folder \(temporary.path) (TMPDIR) does not exist; a dry run copies the store there",
                fix: "create it, or set TMPDIR to a folder that exists")
        }
        let bytes = StoreFiles.paths(of: store).compactMap {
            (try? FileManager.default.attributesOfItem(atPath: $0))?[.size] as? NSNumber
        }
        .reduce(0) { $0 + $1.int64Value }
        directory = ScratchFolder.name(prefix: Self.prefix, in: temporary)
        path = directory.appendingPathComponent(URL(fileURLWithPath: store).lastPathComponent).path
        do {
            try ScratchFolder.create(directory)
            // The -journal too: a crashed writer's unfinished transaction is rolled back on the copy.
            for suffix in ["", StoreFiles.walSuffix, StoreFiles.journalSuffix]
            where FileManager.default.fileExists(atPath: store + suffix) {
                try FileManager.default.copyItem(atPath: store + suffix, toPath: path + suffix)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + suffix)
            }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            let full =
                (error as NSError).code == NSFileWriteOutOfSpaceError
                || ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(ENOSPC)
            let why =
                full
                ? "is full"
                : access(temporary.path, W_OK) != 0
                    ? "cannot be written" : "could not take the copy (\(error.localizedDescription))"
            throw MigrationError(
                full ? .noSpace : .notWritable,
                """
                the temporary folder \(temporary.path) (TMPDIR) \(why); a dry run copies the store there \
                (\(SpaceCheck.format(bytes)))
                """,
                fix:
                    """
                    set TMPDIR to a writable folder with at least \(SpaceCheck.format(bytes)) free, e.g. \
                    TMPDIR=/var/tmp
                    """
            )
        }
    }

    /// Removes the copy's folder.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// `error` with the copy's paths said as what they are.
    func describing(_ error: Error) -> Error {
        guard var failure = error as? MigrationError else {
            let text = "\(error)".replacingOccurrences(of: path, with: "the dry run's copy of \(store)")
            return text == "\(error)" ? error : MigrationError(.store, text, fix: nil)
        }
        failure.message = failure.message.replacingOccurrences(of: path, with: "the dry run's copy of \(store)")
        failure.fix = failure.fix?.replacingOccurrences(of: path, with: "the dry run's copy of \(store)")
        return failure
    }
}
