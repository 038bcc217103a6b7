import Foundation
import GRDB
import GRDBSQLite

extension Statement {
    /// Runs this statement (one that returns no rows) with `values` bound by position, straight
    /// through SQLite's C API. A migration's row-by-row path runs an insert per row; building
    /// GRDB's `StatementArguments` for each cost more than SQLite's own work on the row.
    public func run(_ values: [DatabaseValue]) throws {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        for (offset, value) in values.enumerated() {
            let code = Self.bind(value, to: handle, at: Int32(offset + 1))
            guard code == SQLITE_OK else { throw failure(code, handle) }
        }
        let code = sqlite3_step(handle)
        let error = code == SQLITE_DONE ? nil : failure(code, handle)  // read before the reset
        sqlite3_reset(handle)
        if let error { throw error }
    }

    /// SQLite copies text and blobs as they are bound, so Swift's buffers need not outlive the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ value: DatabaseValue, to handle: SQLiteStatement, at index: Int32) -> Int32 {
        switch value.storage {
        case .null:
            return sqlite3_bind_null(handle, index)
        case .int64(let integer):
            return sqlite3_bind_int64(handle, index, integer)
        case .double(let double):
            return sqlite3_bind_double(handle, index, double)
        case .string(let string):
            var string = string
            return string.withUTF8 { bytes in
                // An empty buffer may have no address, and a NULL pointer would bind NULL, not "".
                bytes.isEmpty ? sqlite3_bind_text(handle, index, "", 0, transient)
                    : sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
            }
        case .blob(let data):
            return data.withUnsafeBytes { bytes in
                bytes.isEmpty ? sqlite3_bind_zeroblob(handle, index, 0)
                    : sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
            }
        }
    }

    private func failure(_ code: Int32, _ handle: SQLiteStatement) -> DatabaseError {
        let message = sqlite3_db_handle(handle).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }
}
