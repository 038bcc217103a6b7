import Crypto
import Foundation
import GRDB
import SQLiteStore

/// A store's logical content as one hash: every table's schema and every row, in a fixed order.
///
/// The crash harness compares stores by content, not bytes, because a store SQLite had to recover
/// (a hot rollback journal played back, a WAL replayed) holds the same data in different pages.
/// Two stores with the same digest hold the same tables, columns, indexes and values.
enum StoreDigest {
    /// Journals SQLite replays or rolls back when it opens a store after a crash: the one list.
    static let sidecars = StoreFiles.sidecarSuffixes

    /// The digest of the store at `path` as SQLite's own recovery leaves it.
    ///
    /// The store and its sidecars are first copied into `scratch` (a fresh directory per call),
    /// and the copy is opened read-write: that is what lets SQLite roll back a hot journal or
    /// replay a WAL, while the original stays exactly as the crash left it for the next run.
    /// Returns `nil` in `digest` when SQLite cannot open or read the copy, with the reason.
    static func recovered(_ path: String, scratch: URL, memo: Memo? = nil) throws -> (digest: String?, problem: String?)
    {
        let key = try memo.map { _ in try fileKey(path) }
        if let key, let known = memo?.digests[key] { return (known, nil) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let copy = scratch.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent).path
        for suffix in [""] + sidecars where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            let digest = try digest(ofWritable: copy)
            if let key { memo?.digests[key] = digest }
            return (digest, nil)
        } catch {
            return (nil, "\(error)")
        }
    }

    /// Digests already computed, by the bytes of the store and its sidecars: most kills leave a
    /// backup (and many a store) byte for byte the source, and hashing bytes is far cheaper than
    /// reading every row through a debug build.
    final class Memo {
        var digests: [String: String] = [:]
    }

    private static func fileKey(_ path: String) throws -> String {
        var hasher = SHA256()
        for suffix in [""] + sidecars where FileManager.default.fileExists(atPath: path + suffix) {
            feed(&hasher, suffix)
            hasher.update(data: try Data(contentsOf: URL(fileURLWithPath: path + suffix)))
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Opens `path` read-write (so SQLite recovers it), checks its integrity, and hashes it.
    static func digest(ofWritable path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.writeWithoutTransaction { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            guard integrity == ["ok"] else {
                throw DigestError(message: "integrity_check: \(integrity.prefix(3).joined(separator: "; "))")
            }
            var hasher = SHA256()
            // The schema as SQLite stores it: a table altered in place reads differently from one
            // created fresh, and the harness wants to know when a run took another path.
            let schema = try Row.fetchAll(
                db,
                sql: """
                    SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name
                    """)
            for row in schema { feed(&hasher, row) }
            let tables = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            for table in tables {
                let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                // Core Data's rows in primary-key order; tables without Z_PK (metadata, join tables)
                // sorted by every column, so the order never depends on how the rows were inserted.
                let order =
                    columns.contains("Z_PK")
                    ? "Z_PK" : (1...max(columns.count, 1)).map(String.init).joined(separator: ", ")
                feed(&hasher, "table \(table)")
                let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM \(quoted) ORDER BY \(order)")
                while let row = try cursor.next() { feed(&hasher, row) }
            }
            return hasher.finalize().map { String(format: "%02x", $0) }.joined()
        }
    }

    private static func feed(_ hasher: inout SHA256, _ text: String) {
        hasher.update(data: Data("\(text.utf8.count):\(text)|".utf8))
    }

    /// Every value with its storage class, so 1, 1.0, '1' and X'31' all hash differently.
    private static func feed(_ hasher: inout SHA256, _ row: Row) {
        for value in row.databaseValues {
            switch value.storage {
            case .null: feed(&hasher, "N")
            case .int64(let int): feed(&hasher, "I\(int)")
            case .double(let double): feed(&hasher, "D\(String(double.bitPattern, radix: 16))")
            case .string(let string): feed(&hasher, "S" + string)
            case .blob(let data):
                if let plist = canonicalPlist(data) {
                    feed(&hasher, "P" + plist)
                } else {
                    feed(&hasher, "B\(data.count)")
                    hasher.update(data: data)
                }
            }
        }
        feed(&hasher, "row")
    }

    /// A binary plist (`Z_METADATA.Z_PLIST`) as text with its dictionaries' keys sorted: the
    /// store writes the same metadata with its keys in a different order from run to run (Swift
    /// dictionaries are seeded per process), and that order means nothing to Core Data.
    private static func canonicalPlist(_ data: Data) -> String? {
        guard data.starts(with: Data("bplist00".utf8)),
            let value = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        else { return nil }
        func render(_ value: Any) -> String {
            switch value {
            case let dictionary as [String: Any]:
                return "{"
                    + dictionary.keys.sorted().map { "\($0.debugDescription)=\(render(dictionary[$0]!))" }.joined(
                        separator: ",") + "}"
            case let array as [Any]: return "[" + array.map(render).joined(separator: ",") + "]"
            case let data as Data: return "<" + data.map { String(format: "%02x", $0) }.joined() + ">"
            case let string as String: return string.debugDescription
            default: return "\(type(of: value))(\(value))"
            }
        }
        return render(value)
    }

    struct DigestError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
