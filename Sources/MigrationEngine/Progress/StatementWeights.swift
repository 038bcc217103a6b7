import SQLiteStore

/// What each statement of an in-place step is expected to cost, from the rows of the tables it
/// names: a step's statements differ by orders of magnitude (renaming a column is a schema
/// edit, copying a million-row table is most of the step), so the bar and the ETA move by
/// this weight rather than one notch per statement. Counting them alike made the ETA of a Wire
/// upgrade far too short (`chrysalis-bench --scenario eta` measures it).
struct StatementWeights {
    /// Rows per table (uppercased name), estimated by each table's highest rowid.
    let rows: [String: Int]

    /// Microseconds per row of each table a statement names, measured statement by statement
    /// on the `eta` scenario's store (SQLite's own work, so a debug build of Chrysalis takes
    /// the same): a copy (`INSERT … SELECT`) 0.7 plus 0.035 per comma of its column lists (the
    /// values it computes: 7 per row of a 90-column table, 0.9 of a join table), plus 1.6 for
    /// each window it sorts (an ordered to-many's positions); an `ALTER TABLE … DROP COLUMN`,
    /// which rewrites every row, 0.9; an `UPDATE` (0.2 to 1.4, by the row's width) or an index
    /// build 0.65; a `DELETE` 0.5; dropping a table 0.2; adding or renaming a column or a table
    /// touches no row.
    static func microsecondsPerRow(_ sql: String) -> Double {
        let head = sql.prefix(32).uppercased()
        if head.hasPrefix("INSERT") {
            let commas = sql.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ",") ? 1 : 0) }
            let windows = sql.components(separatedBy: " OVER (").count - 1
            return 0.7 + 0.035 * Double(commas) + 1.6 * Double(windows)
        }
        if head.hasPrefix("UPDATE") || head.hasPrefix("CREATE INDEX") || head.hasPrefix("CREATE UNIQUE INDEX") {
            return 0.65
        }
        if head.hasPrefix("DELETE") { return 0.5 }
        if head.hasPrefix("DROP TABLE") { return 0.2 }
        if head.hasPrefix("ALTER TABLE") { return sql.uppercased().contains(" DROP COLUMN ") ? 0.9 : 0 }
        return 0
    }

    /// Microseconds any statement takes: parsing, and rewriting and reading back the schema
    /// (adding a column to one of Wire's tables, or renaming one, measured on the `eta`
    /// scenario's store).
    static let perStatement = 500.0

    /// The weight of `statement`, in expected microseconds: its fixed part, and its cost per
    /// row of every table it reads or writes.
    func weight(of statement: SQLStatement) -> Double {
        let perRow = Self.microsecondsPerRow(statement.sql)
        guard perRow > 0 else { return Self.perStatement }
        let touched = Self.tables(in: statement.sql).reduce(0) { $0 + (rows[$1] ?? 0) }
        return Self.perStatement + perRow * Double(touched)
    }

    /// The tables `sql` names after `FROM`, `INTO`, `UPDATE`, `TABLE`, `JOIN` and `ON`,
    /// uppercased, each once (a column that shares a table's name is not one; `main.` and `IF NOT
    /// EXISTS` are skipped).
    static func tables(in sql: String) -> Set<String> {
        var tables: Set<String> = [], previous = ""
        for word in words(sql) where !["MAIN", "IF", "NOT", "EXISTS"].contains(word) {
            if ["FROM", "INTO", "UPDATE", "TABLE", "JOIN", "ON"].contains(previous) { tables.insert(word) }
            previous = word
        }
        return tables
    }

    /// The words of `sql`, uppercased: identifiers, quoted or not, and keywords; a quoted
    /// identifier is one word with its quotes taken off.
    private static func words(_ sql: String) -> [String] {
        var words: [String] = [], word = "", quoted = false
        var characters = sql.makeIterator()
        while let character = characters.next() {
            if quoted {
                if character == "\"" {
                    quoted = false; words.append(word.uppercased()); word = ""
                } else {
                    word.append(character)
                }
            } else if character == "\"" {
                if !word.isEmpty { words.append(word.uppercased()); word = "" }
                quoted = true
            } else if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else if !word.isEmpty {
                words.append(word.uppercased())
                word = ""
            }
        }
        if !word.isEmpty { words.append(word.uppercased()) }
        return words
    }
}
