import Foundation
internal import GRDB
internal import GRDBSQLite

extension Statement {
    /// Runs this statement (one that returns no rows) with `values` bound by position, straight
    /// through SQLite's C API. A migration's row-by-row path runs an insert per row; building
    /// GRDB's `StatementArguments` for each cost more than SQLite's own work on the row.
    ///
    /// Text and blobs are copied into one buffer for the whole statement and bound where they lie
    /// there (`SQLITE_STATIC`), not handed to SQLite to copy one value at a time: each of those
    /// copies took a `malloc` and SQLite's memory-statistics mutex, a share of a policy's insert
    /// stage that `perf record --call-graph dwarf` on `chrysalis-bench --scenario custom-policy`
    /// shows. The bindings are cleared before the buffer goes, so none is left pointing at freed
    /// memory.
    func run(_ values: some Collection<SQLValue>) throws {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        let size = values.reduce(0) { $0 + $1.boundBytes }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 1)
        defer { buffer.deallocate() }
        defer { sqlite3_clear_bindings(handle) }
        var index: Int32 = 1, offset = 0
        for value in values {
            let code = Self.bind(value, to: handle, at: index, copyingInto: buffer, at: &offset)
            guard code == SQLITE_OK else { throw failure(code, handle) }
            index += 1
        }
        let code = sqlite3_step(handle)
        let error = code == SQLITE_DONE ? nil : failure(code, handle)  // read before the reset
        sqlite3_reset(handle)
        if let error { throw error }
    }

    /// The rows this statement returns with `values` bound, each column as stored, read through
    /// SQLite's C API like ``run(_:)``.
    func rows(_ values: [SQLValue]) throws -> [[SQLValue]] {
        let handle = try bind(values)
        defer { sqlite3_reset(handle) }
        let columns = sqlite3_column_count(handle)
        var rows: [[SQLValue]] = []
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw failure(code, handle) }
            rows.append((0..<columns).map { Self.column($0, of: handle) })
        }
    }

    /// Calls `body` once per row this statement returns with `values` bound, with a function that
    /// reads the row's columns as stored, byte for byte: a migration reads its source this way
    /// (GRDB's rows cut text at a NUL and replace bytes that are not UTF-8).
    func forEachRow(_ values: [SQLValue], _ body: ((Int) -> SQLValue) throws -> Void) throws {
        let handle = try bind(values)
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw failure(code, handle) }
            try body { Self.column(Int32($0), of: handle) }
        }
    }

    /// The `(Z_PK, Z_ENT)` pairs in the first two columns of the rows this statement returns
    /// with `values` bound: what a reader's look-ups and relationship walks return, once per row
    /// of a migration, read without building a GRDB row for each. `nil` for a row whose two
    /// columns are not both integers (a damaged store; the caller says where).
    func objectKeys(_ values: [SQLValue]) throws -> [(key: Int64, entity: Int64)?] {
        let handle = try bind(values)
        defer { sqlite3_reset(handle) }
        var keys: [(key: Int64, entity: Int64)?] = []
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return keys }
            guard code == SQLITE_ROW else { throw failure(code, handle) }
            guard sqlite3_column_type(handle, 0) == SQLITE_INTEGER, sqlite3_column_type(handle, 1) == SQLITE_INTEGER
            else {
                keys.append(nil)
                continue
            }
            keys.append((sqlite3_column_int64(handle, 0), sqlite3_column_int64(handle, 1)))
        }
    }

    /// Every column of the first row this statement returns with `values` bound, as stored;
    /// `nil` when it returns none. One array per call, no GRDB row: a reader fetches one object
    /// this way per row of a migration.
    func firstRow(_ values: [SQLValue]) throws -> [SQLValue]? {
        let handle = try bind(values)
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else { throw failure(code, handle) }
        let count = sqlite3_column_count(handle)
        var row: [SQLValue] = []
        row.reserveCapacity(Int(count))
        for index in 0..<count { row.append(Self.column(index, of: handle)) }
        return row
    }

    /// Resets the statement and binds `values` from the first parameter on.
    private func bind(_ values: some Collection<SQLValue>) throws -> SQLiteStatement {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        var index: Int32 = 1
        for value in values {
            let code = Self.bind(value, to: handle, at: index)
            guard code == SQLITE_OK else { throw failure(code, handle) }
            index += 1
        }
        return handle
    }

    /// SQLite copies text and blobs as they are bound, so Swift's buffers need not outlive the call.
    /// Computed, not stored: a static constant is checked for its one-time setup at every use.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    private static func bind(_ value: SQLValue, to handle: SQLiteStatement, at index: Int32) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(handle, index)
        case .integer(let integer):
            return sqlite3_bind_int64(handle, index, integer)
        case .real(let double):
            return sqlite3_bind_double(handle, index, double)
        case .text(let string):
            var string = string
            return string.withUTF8 { bytes in
                // An empty buffer may have no address, and a NULL pointer would bind NULL, not "".
                bytes.isEmpty
                    ? sqlite3_bind_text(handle, index, "", 0, transient)
                    : sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
            }
        case .undecodableText(let data):
            return data.withUnsafeBytes { bytes in
                bytes.isEmpty
                    ? sqlite3_bind_text(handle, index, "", 0, transient)
                    : sqlite3_bind_text(
                        handle, index, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                        transient)
            }
        case .blob(let data):
            return data.withUnsafeBytes { bytes in
                bytes.isEmpty
                    ? sqlite3_bind_zeroblob(handle, index, 0)
                    : sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), transient)
            }
        }
    }

    /// Binds `value`, its bytes (text or a blob) first copied into `buffer` at `offset`, which
    /// moves past them; the binding points there (`SQLITE_STATIC`), so `buffer` must outlive it.
    private static func bind(
        _ value: SQLValue, to handle: SQLiteStatement, at index: Int32,
        copyingInto buffer: UnsafeMutableRawPointer, at offset: inout Int
    ) -> Int32 {
        func place(_ bytes: UnsafeRawBufferPointer) -> UnsafeMutableRawPointer {
            let start = buffer + offset
            if let base = bytes.baseAddress, !bytes.isEmpty { start.copyMemory(from: base, byteCount: bytes.count) }
            offset += bytes.count
            return start
        }
        switch value {
        case .null, .integer, .real:
            return bind(value, to: handle, at: index)
        case .text(let string):
            var string = string
            return string.withUTF8 { bytes in
                // Never a NULL pointer, even for "": that would bind NULL, not the empty text.
                sqlite3_bind_text(
                    handle, index, place(UnsafeRawBufferPointer(bytes)).assumingMemoryBound(to: CChar.self),
                    Int32(bytes.count), nil)
            }
        case .undecodableText(let data):
            return data.withUnsafeBytes { bytes in
                sqlite3_bind_text(
                    handle, index, place(bytes).assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
            }
        case .blob(let data):
            return data.withUnsafeBytes { bytes in
                bytes.isEmpty
                    ? sqlite3_bind_zeroblob(handle, index, 0)
                    : sqlite3_bind_blob(handle, index, place(bytes), Int32(bytes.count), nil)
            }
        }
    }

    /// Column `index` of the current row, in its storage class.
    static func column(_ index: Int32, of handle: SQLiteStatement) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            return SQLValue(
                textBytes: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index))))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    private func failure(_ code: Int32, _ handle: SQLiteStatement) -> DatabaseError {
        let message = sqlite3_db_handle(handle).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }
}

extension SQLValue {
    /// The bytes binding this value copies: a text's UTF-8 or a blob's.
    fileprivate var boundBytes: Int {
        switch self {
        case .null, .integer, .real: 0
        case .text(let string): string.utf8.count
        case .undecodableText(let data), .blob(let data): data.count
        }
    }
}
