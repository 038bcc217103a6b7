import Foundation
import ObjectModel

#if canImport(Glibc)
    import Glibc
#endif

/// What a store file's first 100 bytes say, read before SQLite touches it, so that a text file,
/// an empty file or a truncated copy gets its own clear error instead of SQLite's "file is not a
/// database".
package struct StoreFileCheck: Sendable {
    /// The file's size in bytes.
    package var fileSize: Int64
    /// The page size the header declares.
    package var pageSize: Int
    /// The page count the header declares (0 when the header's count is stale).
    package var declaredPageCount: Int
    /// Whether the header says WAL (file format bytes 18/19 = 2).
    package var isWAL: Bool
    /// The `-wal` sidecar, if present.
    package var walPath: String?
    /// The `-shm` sidecar, if present.
    package var shmPath: String?

    /// What `path` is (its link followed) when it is neither a regular file nor a directory.
    static func specialKind(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil
        default: return InputFile.kind(of: info.st_mode) ?? "not a regular file"
        }
    }

    /// Reads and checks the header of the file at `path`.
    package static func check(_ path: String) throws -> StoreFileCheck {
        let fileManager = FileManager.default
        let header = try readHeader(path)
        let size = ((try? fileManager.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
        guard size > 0 else {
            throw StoreError(
                .empty, path: path, "is empty (0 bytes), not a store", fix: "restore the store from a backup")
        }
        guard header.starts(with: Array("SQLite format 3\0".utf8)) else {
            let text = header.allSatisfy { $0 == 9 || $0 == 10 || $0 == 13 || (32..<127).contains($0) }
            throw StoreError(
                .notSQLite, path: path, "is not a SQLite file (\(text ? "it is text" : "unknown header"))",
                fix: "give the path of a Core Data .sqlite store")
        }
        guard header.count == 100 else {
            throw StoreError(
                .truncated, path: path, "is truncated: \(size) bytes, shorter than a SQLite header",
                fix: "copy the store again, with its -wal and -shm files")
        }
        let bytes = [UInt8](header)
        func bigEndian(_ offset: Int, _ count: Int) -> Int {
            bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
        }
        let rawPageSize = bigEndian(16, 2)
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        // The in-header page count is valid only when the change counter matches version-valid-for.
        let pageCount = bigEndian(24, 4) == bigEndian(92, 4) ? bigEndian(28, 4) : 0
        let wal = fileManager.fileExists(atPath: StoreFiles.wal(of: path)) ? StoreFiles.wal(of: path) : nil
        try requireWhole(path, size: size, pageSize: pageSize, pageCount: pageCount, wal: wal)
        return StoreFileCheck(
            fileSize: size, pageSize: pageSize, declaredPageCount: pageCount, isWAL: bytes[18] == 2,
            walPath: wal,
            shmPath: fileManager.fileExists(atPath: StoreFiles.shm(of: path)) ? StoreFiles.shm(of: path) : nil)
    }

    /// The first 100 bytes of the file at `path`, once it is known to be a regular file that
    /// can be read (a FIFO is refused before it is opened).
    private static func readHeader(_ path: String) throws -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StoreError(.missing, path: path, "no such file", fix: "check the path")
        }
        guard !isDirectory.boolValue else {
            throw StoreError(
                .notSQLite, path: path, "is a directory, not a store file", fix: "give the path of the .sqlite file")
        }
        if let kind = specialKind(path) {
            // Opening a FIFO to read waits for a writer, forever: refused before it is opened.
            throw StoreError(
                .notSQLite, path: path, "is \(kind), not a store file", fix: "give the path of the .sqlite file itself")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError(
                .unreadable, path: path, "cannot be read (permissions?)", fix: "check the file's owner and mode")
        }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 100)) ?? Data()
    }

    /// Throws when the file is shorter than its header says and no WAL frames are there to
    /// replay. A checkpoint copies the WAL's pages into the file in page order, page 1 (this
    /// header) first, so one interrupted by a kill leaves a header that counts pages not yet
    /// written, while the -wal still holds them all and SQLite replays it on open.
    private static func requireWhole(_ path: String, size: Int64, pageSize: Int, pageCount: Int, wal: String?) throws {
        let walSize =
            wal.flatMap { ((try? FileManager.default.attributesOfItem(atPath: $0)[.size]) as? NSNumber)?.int64Value }
            ?? 0
        if walSize == 0, pageSize >= 512, pageCount > 0, Int64(pageCount) * Int64(pageSize) > size {
            throw StoreError(
                .truncated, path: path,
                """
                is truncated: the header declares \(pageCount) pages of \(pageSize) bytes (\(pageCount * pageSize) \
                bytes) but the file has \(size)
                """,
                fix: "copy the store again, completely, with its -wal and -shm files")
        }
    }
}
