internal import GRDB
import Logging

/// Chrysalis's debug log, the counterpart of Core Data's `com.apple.CoreData.SQLDebug` launch
/// argument: every SQL statement run on a store, with its time, at `trace` level. It costs
/// nothing unless the process's log handler lets trace messages through (the command line's
/// `--verbose`, or `CHRYSALIS_LOG=trace`): the statement hook is only installed then.
package enum StoreLog {
    /// The SQL log.
    package static let sql = Logger(label: "chrysalis.sql")

    /// Logs every statement `db` runs, with its duration, when trace messages are wanted.
    static func installTrace(in db: Database) {
        guard sql.logLevel <= .trace else { return }
        db.trace(options: .profile) { event in
            guard case let .profile(statement, duration) = event else { return }
            sql.trace("\(String(format: "%8.3f", duration * 1000)) ms  \(statement.expandedSQL)")
        }
    }
}
