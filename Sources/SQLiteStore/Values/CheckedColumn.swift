import Foundation
internal import GRDB

/// One column of a store table, for reading its values with checks: every value read from a
/// store goes through here, so a NULL or a value of the wrong kind (text in `Z_MAX`, an integer
/// in `Z_PLIST`, what a `-wal` copied from another database shows) is a ``StoreError`` naming
/// the file, table and column, never a trap.
///
/// GRDB's typed subscripts (`row[0] as Int`, `row["name"] as String?`) stop the process when a
/// value does not convert; its typed fetches convert text to 0 without a word. Reading the raw
/// `DatabaseValue` and converting here does neither.
struct CheckedColumn: Sendable {
    /// The store file.
    var path: String
    /// The table.
    var table: String
    /// The column.
    var column: String

    /// The integer in `value`; `nil` for NULL. A real number that is a whole number counts (a
    /// column with REAL affinity stores integers that way); text, blobs and fractions throw.
    /// `row` names the row in the error, and is only made then: readers call this per value.
    func integer(_ value: DatabaseValue, row: @autoclosure () -> String? = nil) throws -> Int64? {
        switch value.storage {
        case .null: return nil
        case .int64(let number): return number
        case .double(let number):
            if number.rounded(.towardZero) == number, let whole = Int64(exactly: number) { return whole }
            throw wrongKind(value, expected: "an integer", row: row())
        case .string, .blob: throw wrongKind(value, expected: "an integer", row: row())
        }
    }

    /// The integer in `value`, which must not be NULL.
    func requiredInteger(_ value: DatabaseValue, row: @autoclosure () -> String? = nil) throws -> Int64 {
        guard let number = try integer(value, row: row()) else {
            throw wrongKind(value, expected: "an integer", row: row())
        }
        return number
    }

    /// ``requiredInteger(_:row:)`` as an `Int`.
    func requiredInt(_ value: DatabaseValue, row: @autoclosure () -> String? = nil) throws -> Int {
        Int(try requiredInteger(value, row: row()))
    }

    /// The text in `value`; `nil` for NULL. Integers, reals and blobs throw.
    func text(_ value: DatabaseValue, row: @autoclosure () -> String? = nil) throws -> String? {
        switch value.storage {
        case .null: return nil
        case .string(let text): return text
        default: throw wrongKind(value, expected: "text", row: row())
        }
    }

    /// The bytes in `value`; `nil` for NULL. Numbers and text throw.
    func blob(_ value: DatabaseValue, row: @autoclosure () -> String? = nil) throws -> Data? {
        switch value.storage {
        case .null: return nil
        case .blob(let data): return data
        default: throw wrongKind(value, expected: "a blob", row: row())
        }
    }

    /// The error for `found` where `expected` belongs: `Z_PRIMARYKEY.Z_MAX holds text ("abc")
    /// where an integer belongs`, with the fix.
    func wrongKind(_ found: DatabaseValue, expected: String, row: String? = nil) -> StoreError {
        let place = "\(table).\(column)" + (row.map { " (\($0))" } ?? "")
        // A -wal from another database garbles Core Data's own tables; a bad value in an entity
        // table's row is that row's, and the fix says how to find it.
        let fix =
            table.hasPrefix("Z_")
            ? Self.damagedFix(path)
            : """
            the row is not as Core Data writes it: correct its \(column) (`SELECT Z_PK, \(column) FROM \(table) \
            WHERE typeof(\(column)) != '\(Self.storageClass(expected))'` finds such rows), or restore the store \
            from a backup
            """
        return StoreError(
            table == "Z_METADATA" ? .badMetadata : .corrupt, path: path,
            "\(place) holds \(found.readable) where \(expected) belongs", fix: fix)
    }

    /// SQLite's `typeof` for what a message expects.
    private static func storageClass(_ expected: String) -> String {
        switch expected {
        case "text": return "text"
        case "a blob": return "blob"
        default: return "integer"
        }
    }

    /// What to do about a store whose own bookkeeping is damaged. A `-wal` beside the store is
    /// named: one copied from another database makes a store look exactly this way.
    static func damagedFix(_ path: String) -> String {
        guard FileManager.default.fileExists(atPath: StoreFiles.wal(of: path)) else {
            return "the store is damaged or is not a Core Data store; restore it from a backup"
        }
        return "the store is damaged or is not a Core Data store; restore it from a backup together with its -wal "
            + "(a -wal copied from another database looks like this)"
    }
}

extension DatabaseValue {
    /// The value as a person would name it in a message: `NULL`, `an integer (42)`, `a real
    /// number (1.5)`, `text ("abc")`, `a blob of 12 bytes`. Long text is cut.
    var readable: String {
        switch storage {
        case .null: return "NULL"
        case .int64(let number): return "an integer (\(number))"
        case .double(let number): return "a real number (\(number))"
        case .string(let text):
            let line = text.replacingOccurrences(of: "\n", with: "\\n")
            return "text (\"\(line.count > 40 ? String(line.prefix(40)) + "…" : line)\")"
        case .blob(let data): return "a blob of \(data.count) byte\(data.count == 1 ? "" : "s")"
        }
    }
}

extension Row {
    /// The raw value at `index`, whatever its kind: the one subscript that cannot trap.
    func raw(_ index: Int) -> DatabaseValue {
        self[index] as DatabaseValue
    }
}
