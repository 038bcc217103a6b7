import Foundation
import GRDB
import ObjectModel
import SQLiteStore

/// An inferred step done in place with SQL, in one transaction, without loading a single object:
/// `ALTER TABLE` (rename table, rename/add/drop column) where a table's storage stays the same,
/// SQLite's rebuild (new table, copy, drop, rename) where it does not; then Core Data's indexes,
/// `Z_PRIMARYKEY` and metadata for the destination model. The result has the layout a fresh
/// store of the destination model has.
struct LightweightMigration {
    let db: Database
    let inference: InferredMapping
    let source: StoreLayout
    let destination: StoreLayout
    let path: String

    private var q: (String) -> String { ColumnNaming.quote }

    /// What the step did to each destination table, for the plan's findings and tests.
    enum TableMethod: Equatable { case altered, rebuilt, created }

    @discardableResult
    func run(metadata: StoreMetadata) throws -> [String: TableMethod] {
        // Core Data checks the rows a required value is new to before it migrates (error 134110).
        if !inference.requirements.isEmpty {
            let unmet = try inference.unmetRequirements(reader: ObjectReader(db: db, layout: source, path: path))
            if !unmet.isEmpty { throw inference.unmetRequirementsError(unmet, store: path) }
        }
        let columns = LightweightColumns(inference: inference, source: source, destination: destination)
        let methods = Self.tableMethods(inference: inference, source: source, destination: destination)
        let sourceTables = Set(source.tables.map(\.name) + source.joinTables.map(\.name))
        let wanted = Dictionary(StoreSchema(layout: destination).indexes.map { (Self.statement(for: $0), $0) }, uniquingKeysWith: { a, _ in a })
        // Derived-attribute triggers and indexes name old columns. An index already exactly as the
        // destination wants it (same name, same statement) stays, so an `ALTER` step does not
        // rebuild untouched indexes; the rest are dropped here and Core Data's recreated below.
        for row in try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name IN (\(sourceTables.map { _ in "?" }.joined(separator: ",")))",
                                    arguments: StatementArguments(Array(sourceTables))) {
            let type: String = row[0], name: String = row[1], sql: String = row[2]
            if type == "index", let index = wanted[sql], index.name == name, canKeep(index, methods: methods, columns: columns) { continue }
            try db.execute(sql: "DROP \(type.uppercased()) IF EXISTS \(q(name))")
        }
        var renames: [(from: String, to: String)] = []
        var altered: [(table: StoreLayout.Table, origin: StoreLayout.Table)] = []
        for table in destination.tables {
            let origin = Self.originTable(of: table, inference: inference, source: source, destination: destination)
            switch (methods[table.name], origin) {
            case (.altered?, let origin?):
                altered.append((table, origin))
            case (.rebuilt?, let origin?):
                let temporary = "_chrysalis_new_" + table.name
                try create(table, named: temporary)
                try copy(into: temporary, plan: columns.columns(of: table), from: origin, table: table)
                renames.append((temporary, table.name))
            default:
                try create(table, named: table.name)
            }
        }
        for join in destination.joinTables {
            let temporary = "_chrysalis_new_" + join.name
            try db.execute(sql: "CREATE TABLE \(q(temporary)) (\(join.columns.map { "\(q($0)) INTEGER" }.joined(separator: ", ")), PRIMARY KEY (\((join.sides.map(\.column) + (join.sourceColumn.map { [$0] } ?? [])).map(q).joined(separator: ", "))))")
            try JoinTableCopy(inference: inference, source: source, destination: destination, db: db).fill(temporary, join: join)
            renames.append((temporary, join.name))
        }
        // Altered tables change in place; their old names move aside first so tables can swap names.
        for (table, origin) in altered {
            try alter(origin, into: table, plan: columns.columns(of: table), remap: columns)
            guard origin.name != table.name else { continue }
            let temporary = "_chrysalis_move_" + table.name
            try db.execute(sql: "ALTER TABLE \(q(origin.name)) RENAME TO \(q(temporary))")
            renames.append((temporary, table.name))
        }
        for table in sourceTables where !altered.contains(where: { $0.origin.name == table }) {
            try db.execute(sql: "DROP TABLE IF EXISTS \(q(table))")
        }
        for rename in renames where rename.from != rename.to {
            try db.execute(sql: "ALTER TABLE \(q(rename.from)) RENAME TO \(q(rename.to))")
        }
        let existing = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
        try IndexBuild.run(wanted.filter { !existing.contains($0.value.name) }.map(\.key).sorted(), in: db)
        try rewriteBookkeeping(metadata: metadata)
        return methods
    }

    /// Core Data's statement for an index, as SQLite keeps it in `sqlite_master`.
    static func statement(for index: StoreSchema.Index) -> String {
        let q = ColumnNaming.quote
        return "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(q(index.name)) ON \(q(index.table)) (\(index.columns.joined(separator: ", ")))"
    }

    /// Whether an index the destination wants can stay: its table is altered under the same name
    /// and every column it covers is kept as it is.
    private func canKeep(_ index: StoreSchema.Index, methods: [String: TableMethod], columns: LightweightColumns) -> Bool {
        guard let table = destination.tables.first(where: { $0.name == index.table }), methods[table.name] == .altered,
              Self.originTable(of: table, inference: inference, source: source, destination: destination)?.name == table.name else { return false }
        let plan = columns.columns(of: table)
        return index.columns.allSatisfy { expression in
            let name = String(expression.prefix { $0 != " " })
            return plan.contains { $0.name == name && $0.value == .source(column: name, fill: nil) }
        }
    }

    /// Whether the step keeps every source row under its entity number: no entity is dropped or
    /// renumbered, so no statement deletes a row or rewrites `Z_ENT`, and row counts cannot change.
    static func preservesRows(inference: InferredMapping, source: StoreLayout, destination: StoreLayout) -> Bool {
        let numbers = LightweightColumns(inference: inference, source: source, destination: destination).entityNumbers
        return numbers.count == source.numbering.entries.count && numbers.allSatisfy { $0.key == $0.value }
    }

    /// How each destination table will be made: altered in place, rebuilt, or created empty
    /// (join tables are always rebuilt). Needs no store: the plan shows it.
    static func tableMethods(inference: InferredMapping, source: StoreLayout, destination: StoreLayout) -> [String: TableMethod] {
        let columns = LightweightColumns(inference: inference, source: source, destination: destination)
        var methods: [String: TableMethod] = [:]
        var alteredOrigins: Set<String> = []
        for table in destination.tables {
            guard let origin = originTable(of: table, inference: inference, source: source, destination: destination) else {
                methods[table.name] = .created
                continue
            }
            if canAlter(columns.columns(of: table)), alteredOrigins.insert(origin.name).inserted {
                methods[table.name] = .altered
            } else {
                methods[table.name] = .rebuilt
            }
        }
        for join in destination.joinTables { methods[join.name] = .rebuilt }
        return methods
    }

    /// The source table a destination table takes its rows from (hierarchies never merge).
    static func originTable(of table: StoreLayout.Table, inference: InferredMapping, source: StoreLayout, destination: StoreLayout) -> StoreLayout.Table? {
        let members = destination.numbering.numbers(inHierarchyOf: destination.numbering.number(of: table.rootEntity) ?? 0)
            .compactMap { destination.numbering.name(of: $0) }
        return members.compactMap { inference.entitySources[$0] }.compactMap { source.table(for: $0) }.first
    }

    private func create(_ table: StoreLayout.Table, named name: String) throws {
        let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + table.columns.map { "\(q($0.name)) \($0.sqlType)" }
        try db.execute(sql: "CREATE TABLE \(q(name)) ( \(columns.joined(separator: ", ")) )")
    }

    /// The rows of the surviving source entities, renumbered, with every column's new value.
    private func sourceEntityNumbers(for table: StoreLayout.Table) -> [Int] {
        let members = destination.numbering.numbers(inHierarchyOf: destination.numbering.number(of: table.rootEntity) ?? 0)
            .compactMap { destination.numbering.name(of: $0) }
        return members.compactMap { inference.entitySources[$0] }.compactMap { source.numbering.number(of: $0) }
    }

    private func copy(into temporary: String, plan: [LightweightColumns.Column], from origin: StoreLayout.Table, table: StoreLayout.Table) throws {
        let remap = LightweightColumns(inference: inference, source: source, destination: destination)
        let numbers = sourceEntityNumbers(for: table)
        guard !numbers.isEmpty else { return }
        let newEntity = remap.remap("s.Z_ENT")
        var names = ["Z_PK", "Z_ENT", "Z_OPT"], values = ["s.Z_PK", newEntity, "s.Z_OPT"]
        var arguments: [DatabaseValue] = []
        for column in plan {
            let applies = "(\(newEntity)) IN (\(column.applies.map(String.init).joined(separator: ",")))"
            let expression: String
            switch column.value {
            case let .source(name, fill):
                expression = fill == nil ? "s.\(q(name))" : "COALESCE(s.\(q(name)), ?)"
                if let fill { arguments.append(fill) }
            case .constant(let value):
                expression = "?"
                arguments.append(value)
            case .computed(let sql): expression = sql
            }
            names.append(q(column.name))
            values.append(column.applies.isEmpty ? "NULL" : "CASE WHEN \(applies) THEN \(expression) END")
        }
        try db.execute(sql: "INSERT INTO \(q(temporary)) (\(names.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(q(origin.name)) s WHERE s.Z_ENT IN (\(numbers.map(String.init).joined(separator: ",")))",
                       arguments: StatementArguments(arguments))
    }

    /// A table can change in place when every column is a kept source column or a constant, and
    /// no source column feeds two new ones.
    private static func canAlter(_ plan: [LightweightColumns.Column]) -> Bool {
        var used: Set<String> = []
        for column in plan {
            switch column.value {
            case .computed: return false
            case .source(let name, _): if !used.insert(name).inserted { return false }
            case .constant: break
            }
        }
        return true
    }

    private func alter(_ origin: StoreLayout.Table, into table: StoreLayout.Table, plan: [LightweightColumns.Column], remap: LightweightColumns) throws {
        let name = q(origin.name)
        let kept = Set(plan.compactMap { column -> String? in if case .source(let source, _) = column.value { return source } else { return nil } })
        // Statements that would change nothing are skipped: each is a scan of the whole table.
        let numbers = sourceEntityNumbers(for: table)
        let stored = source.numbering.numbers(inHierarchyOf: source.numbering.number(of: origin.rootEntity) ?? 0)
        if !Set(numbers).isSuperset(of: stored) {
            try db.execute(sql: "DELETE FROM \(name) WHERE Z_ENT NOT IN (\(numbers.map(String.init).joined(separator: ",")))")
        }
        let everyEntity = Set(destination.numbering.numbers(inHierarchyOf: destination.numbering.number(of: table.rootEntity) ?? 0))
        for column in origin.columns where !kept.contains(column.name) {
            try db.execute(sql: "ALTER TABLE \(name) DROP COLUMN \(q(column.name))")
        }
        // Renames go through temporary names, so two columns can trade names.
        let renamed = plan.compactMap { column -> (String, String)? in
            if case .source(let source, _) = column.value, source != column.name { return (source, column.name) }
            return nil
        }
        for (from, _) in renamed { try db.execute(sql: "ALTER TABLE \(name) RENAME COLUMN \(q(from)) TO \(q("_chrysalis_" + from))") }
        for (from, to) in renamed { try db.execute(sql: "ALTER TABLE \(name) RENAME COLUMN \(q("_chrysalis_" + from)) TO \(q(to))") }
        // Every value change goes into one UPDATE, so the rows are rewritten once, whatever changed.
        // Its expressions see the row as it was, so entity tests use the renumbered Z_ENT expression.
        let entity = remap.remap("Z_ENT")
        var sets: [String] = entity == "Z_ENT" ? [] : ["Z_ENT = \(entity)"]
        var arguments: [DatabaseValue] = []
        for column in plan {
            let covers = Set(column.applies).isSuperset(of: everyEntity)
            let applies = "(\(entity)) IN (\(column.applies.map(String.init).joined(separator: ",")))"
            switch column.value {
            case .constant(let value):
                let type = table.columns.first { $0.name == column.name }?.sqlType ?? ""
                try db.execute(sql: "ALTER TABLE \(name) ADD COLUMN \(q(column.name)) \(type)")
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
            try db.execute(sql: "UPDATE \(name) SET \(sets.joined(separator: ", "))", arguments: StatementArguments(arguments))
        }
    }

    /// `Z_PRIMARYKEY` in the new numbering (keys keep counting from where they were), the
    /// destination's hashes in `Z_METADATA`, and no stale `Z_MODELCACHE`.
    private func rewriteBookkeeping(metadata: StoreMetadata) throws {
        let recorded = Dictionary(try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY").map { ($0[0] as String? ?? "", $0[1] as Int64? ?? 0) },
                                  uniquingKeysWith: max)
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
        for entry in destination.numbering.entries {
            var maximum: Int64 = 0
            if entry.superNumber == 0, let table = destination.table(for: entry.name) {
                maximum = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(q(table.name))") ?? 0
                if let origin = inference.entitySources[entry.name].flatMap({ source.numbering.name(of: source.numbering.number(of: $0) ?? 0) }) {
                    maximum = max(maximum, recorded[origin] ?? 0)
                }
            }
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                           arguments: [entry.number, entry.name, entry.superNumber, maximum])
        }
        var updated = metadata
        updated.setModel(destination.model)
        try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", arguments: [try updated.encodedPlist()])
        try db.execute(sql: "DROP TABLE IF EXISTS Z_MODELCACHE")
    }
}
