internal import GRDB
internal import GRDBSQLite

/// Counts the instructions SQLite's virtual machine runs on a connection, through SQLite's
/// progress handler: a measure of work that is the same on every run and every machine.
///
/// Tests use it to prove that a migration's work grows linearly with its rows (they never time
/// anything); nothing in a migration installs it, so it costs nothing unless attached.
package final class SQLiteWorkCounter: @unchecked Sendable {
    /// Virtual-machine instructions counted so far, on every connection the counter is attached to.
    package private(set) var steps: Int64 = 0

    /// A counter at zero.
    package init() {}

    /// Counts every instruction `connection` runs from now on. The counter must outlive the
    /// attachment: keep it until the connection is closed or ``detach(from:)`` is called.
    package func attach(to connection: StoreConnection) {
        sqlite3_progress_handler(
            connection.db.sqliteConnection, 1,
            { context in
                guard let context else { return 0 }
                Unmanaged<SQLiteWorkCounter>.fromOpaque(context).takeUnretainedValue().steps += 1
                return 0  // never interrupts
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops counting on `connection`.
    package func detach(from connection: StoreConnection) {
        sqlite3_progress_handler(connection.db.sqliteConnection, 0, nil, nil)
    }

    /// Sets the count back to zero.
    package func reset() { steps = 0 }
}
