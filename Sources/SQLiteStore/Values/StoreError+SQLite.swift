internal import GRDB

extension StoreError {
    /// Turns a GRDB/SQLite failure into a one-line ``StoreError`` naming the file.
    static func from(_ error: Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let database = error as? DatabaseError else {
            return StoreError(.sqlite, path: path, "\(error)")
        }
        let message = database.message ?? "SQLite error \(database.resultCode.rawValue)"
        if database.extendedResultCode == .SQLITE_READONLY_ROLLBACK {
            return StoreError(
                .readOnly, path: path,
                "has an unfinished transaction a writer that crashed left in \(path)-journal, which must be rolled back before the store can be read",
                fix:
                    "open the store with its app, or run `chrysalis migrate`, which rolls it back first (this command writes nothing)"
            )
        }
        if message.hasPrefix(CheckedArithmetic.messagePrefix) {
            return StoreError(
                .badValue, path: path, message,
                fix: "change the value expression so its result stays within the attribute's range")
        }
        switch database.resultCode {
        case .SQLITE_NOTADB:
            return StoreError(
                .corrupt, path: path, "is not a valid database (\(message))", fix: "restore the store from a backup")
        case .SQLITE_CORRUPT:
            return StoreError(
                .corrupt, path: path, "is corrupt (\(message))",
                fix: "restore the store from a backup; `sqlite3 STORE .recover` may save some rows")
        case .SQLITE_READONLY, .SQLITE_PERM:
            return StoreError(
                .readOnly, path: path, "cannot be written (\(message))",
                fix: "check the file's and directory's permissions")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return StoreError(
                .busy, path: path, "is locked by another process (\(message))",
                fix: "close the app or process using it and try again")
        case .SQLITE_CANTOPEN:
            if let cause = OpenFailure.cause(path: path) {
                return StoreError(.unreadable, path: path, cause.problem, fix: cause.fix)
            }
            return StoreError(
                .unreadable, path: path, "cannot be opened (\(message))",
                fix: "check that the file and its directory are readable")
        case .SQLITE_FULL:
            return StoreError(
                .full, path: path, "the disk is full (\(message))", fix: "free space on the volume and try again")
        default:
            return StoreError(.sqlite, path: path, message)
        }
    }
}
