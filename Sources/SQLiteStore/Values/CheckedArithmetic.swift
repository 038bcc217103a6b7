import Foundation
internal import GRDB
internal import GRDBSQLite

/// The SQL function that guards arithmetic a migration compiles to SQL: SQLite turns a result
/// past Double's range into infinity and an overflowing integer sum into a real number, and
/// would write either to the store without a word. Row by row, the evaluator stops with an
/// error there; wrapped in this function, the set-based path stops too.
///
/// `chrysalis_checked_number(value, integer, label)` gives `value` back unless it is an
/// infinite real, or (when `integer` is 1) a real past `Int64`'s range: then the statement fails
/// with a message that names `label` (the expression, and where it was evaluated). Every store
/// connection has it (``PersistentStore`` registers it), and it is written in C terms: it runs
/// once per row and arithmetic node, so it must cost next to nothing.
package enum CheckedArithmetic {
    /// The function's SQL name.
    package static let functionName = "chrysalis_checked_number"
    /// Every message the function raises starts with this, so a caller can tell it from SQLite's own.
    package static let messagePrefix = "the value expression "

    /// `sql` (an arithmetic result) wrapped in the guard; `label` is bound as the last argument,
    /// so it goes after the fragment's own arguments.
    package static func guarded(_ sql: String, integer: Bool) -> String {
        "\(functionName)(\(sql), \(integer ? 1 : 0), ?)"
    }

    /// The label bound for an expression: `` `$source.price * 2` on a Book row ``.
    package static func label(expression: String, entity: String) -> SQLValue {
        .text("`\(expression)` on a \(entity) row")
    }

    /// Registers the function on `db`'s connection.
    static func install(in db: Database) {
        sqlite3_create_function_v2(
            db.sqliteConnection, functionName, 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            checkedNumber, nil, nil, nil)
    }
}

/// The function's body, in SQLite's C calling convention.
private func checkedNumber(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    guard let arguments, count == 3 else { return }
    let value = arguments[0]
    guard sqlite3_value_type(value) == SQLITE_FLOAT else {
        sqlite3_result_value(context, value)
        return
    }
    let number = sqlite3_value_double(value)
    let integer = sqlite3_value_int(arguments[1]) != 0
    // 2^63 is the first real past Int64 (and Double(Int64.max) rounds up to it).
    guard !number.isFinite || (integer && abs(number) >= 9_223_372_036_854_775_808) else {
        sqlite3_result_value(context, value)
        return
    }
    let label = sqlite3_value_text(arguments[2]).map { String(cString: $0) } ?? "an expression"
    let result =
        number.isFinite
        ? "\(number), past the range of a 64-bit integer" : "infinity, past the range of a Double (about ±1.8e308)"
    sqlite3_result_error(context, CheckedArithmetic.messagePrefix + label + " gives " + result, -1)
}
