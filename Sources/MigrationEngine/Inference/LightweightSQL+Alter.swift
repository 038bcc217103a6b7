import ObjectModel
import SQLiteStore

/// A table whose storage stays the same, altered where it is.
extension LightweightSQL {
    /// An altered table's statements: rows of dropped entities deleted, dropped columns dropped,
    /// renamed ones renamed, new ones added, and one `UPDATE` for every value that changes.
    /// Statements that would change nothing are left out: each is a scan of the whole table.
    func alter(_ origin: StoreLayout.Table, into table: StoreLayout.Table) -> [SQLStatement] {
        let name = q(origin.name)
        let plan = columns.columns(of: table)
        var statements: [SQLStatement] = []
        if deletesRows(from: origin, into: table) {
            let numbers = sourceEntityNumbers(for: table)
            statements.append(
                SQLStatement(
                    "DELETE FROM \(name) WHERE Z_ENT NOT IN (\(numbers.map(String.init).joined(separator: ",")))"))
        }
        statements += computeNewColumns(name, plan: plan, table: table)
        let kept = Set(
            plan.compactMap { column -> String? in
                if case .source(let source, _) = column.value { return source } else { return nil }
            })
        for column in origin.columns where !kept.contains(column.name) {
            statements.append(SQLStatement("ALTER TABLE \(name) DROP COLUMN \(q(column.name))"))
        }
        // Renames go through temporary names, so two columns can trade names.
        let renamed = plan.compactMap { column -> (String, String)? in
            if case .source(let source, _) = column.value, source != column.name { return (source, column.name) }
            return nil
        }
        for (from, _) in renamed {
            statements.append(
                SQLStatement("ALTER TABLE \(name) RENAME COLUMN \(q(from)) TO \(q("_chrysalis_" + from))"))
        }
        for (from, to) in renamed {
            statements.append(SQLStatement("ALTER TABLE \(name) RENAME COLUMN \(q("_chrysalis_" + from)) TO \(q(to))"))
        }
        return statements + addAndUpdate(name, plan: plan, table: table)
    }

    /// New columns whose values are computed (see ``canAlter(_:origin:)``), added and filled by one
    /// `UPDATE … FROM` of a query over the table as the source left it: before any column is
    /// dropped or renamed and any `Z_ENT` renumbered, the row the expressions read (as `s`) is
    /// the source's row, as in a rebuild's copy. A window in them is evaluated once, over the
    /// whole table, before the first row is written.
    private func computeNewColumns(_ name: String, plan: [LightweightColumns.Column], table: StoreLayout.Table)
        -> [SQLStatement]
    {
        let computed = plan.compactMap { column -> (name: String, sql: String, applies: [Int])? in
            if case .computed(let sql, _) = column.value {
                return (column.name, sql, column.applies)
            } else {
                return nil
            }
        }
        guard !computed.isEmpty else { return [] }
        let entity = columns.remap("s.Z_ENT")
        let everyEntity = Set(
            destination.numbering.numbers(inHierarchyOf: destination.numbering.number(of: table.rootEntity) ?? 0))
        var statements = computed.map { column in
            SQLStatement(
                """
                ALTER TABLE \(name) ADD COLUMN \(q(column.name)) \
                \(table.columns.first { $0.name == column.name }?.sqlType ?? "")
                """
            )
        }
        // A column every entity of the table has needs no test of Z_ENT, so a window over an
        // indexed key reads the index alone; the rows come back in key order, so the UPDATE
        // writes the table's pages in order, far faster than with either undone
        // (`chrysalis-bench --scenario rebuild-ordered` numbers positions so).
        let values = computed.map { column in
            let value =
                column.applies.isEmpty
                ? "NULL"
                : Set(column.applies).isSuperset(of: everyEntity)
                    ? column.sql
                    : """
                    CASE WHEN (\(entity)) IN (\(column.applies.map(String.init).joined(separator: ","))) THEN \
                    \(column.sql) END
                    """
            return "\(value) AS \(q(column.name))"
        }
        let sets = computed.map { "\(q($0.name)) = w.\(q($0.name))" }
        statements.append(
            SQLStatement(
                """
                UPDATE \(name) SET \(sets.joined(separator: ", ")) FROM (SELECT s.Z_PK AS _chrysalis_pk, \
                \(values.joined(separator: ", ")) FROM \(name) s ORDER BY s.Z_PK) AS w WHERE w._chrysalis_pk = \
                \(name).Z_PK
                """
            ))
        return statements
    }

    /// New columns added; every value change in one `UPDATE`, so the rows are rewritten once,
    /// whatever changed. Its expressions see the row as it was, so entity tests use the
    /// renumbered `Z_ENT` expression.
    private func addAndUpdate(_ name: String, plan: [LightweightColumns.Column], table: StoreLayout.Table)
        -> [SQLStatement]
    {
        let everyEntity = Set(
            destination.numbering.numbers(inHierarchyOf: destination.numbering.number(of: table.rootEntity) ?? 0))
        let entity = columns.remap("Z_ENT")
        var statements: [SQLStatement] = []
        var sets: [String] = entity == "Z_ENT" ? [] : ["Z_ENT = \(entity)"]
        var arguments: [SQLValue] = []
        for column in plan {
            let covers = Set(column.applies).isSuperset(of: everyEntity)
            let applies = "(\(entity)) IN (\(column.applies.map(String.init).joined(separator: ",")))"
            switch column.value {
            case .constant(let value):
                let type = table.columns.first { $0.name == column.name }?.sqlType ?? ""
                statements.append(SQLStatement("ALTER TABLE \(name) ADD COLUMN \(q(column.name)) \(type)"))
                guard !value.isNull else { continue }
                sets.append(covers ? "\(q(column.name)) = ?" : "\(q(column.name)) = CASE WHEN \(applies) THEN ? END")
                arguments.append(value)
            case let .source(_, fill):
                let keptValue = fill == nil ? q(column.name) : "COALESCE(\(q(column.name)), ?)"
                if covers {
                    guard let fill else { continue }
                    sets.append("\(q(column.name)) = \(keptValue)")
                    arguments.append(fill)
                } else {
                    sets.append("\(q(column.name)) = CASE WHEN \(applies) THEN \(keptValue) END")
                    if let fill { arguments.append(fill) }
                }
            case .computed: break
            }
        }
        if !sets.isEmpty {
            statements.append(SQLStatement("UPDATE \(name) SET \(sets.joined(separator: ", "))", arguments))
        }
        return statements
    }
}
