import ObjectModel
import SQLiteStore

/// The SQL of an inferred step done in place, compiled from the inferred mapping and the two
/// layouts, without loading a single object: `ALTER TABLE` (rename table, rename/add/drop column)
/// where a table's storage stays the same, SQLite's rebuild (new table, copy, drop, rename) where
/// it does not, then Core Data's indexes. The result has the layout a fresh store of the
/// destination model has. ``LightweightMigration`` runs these statements and `chrysalis plan
/// --sql` prints them: one source for both.
struct LightweightSQL {
    let inference: InferredMapping
    let source: StoreLayout
    let destination: StoreLayout
    /// How each destination column gets its values, worked out once for the step.
    let columns: LightweightColumns
    /// The destination join tables kept in place, by name, each from its own source table
    /// (``JoinTableCopy/inPlace(_:)``).
    let joinsInPlace: [String: JoinTableCopy.InPlace]
    /// The source join tables those are, by their source names.
    let keptJoinSources: Set<String>

    init(inference: InferredMapping, source: StoreLayout, destination: StoreLayout) {
        (self.inference, self.source, self.destination) = (inference, source, destination)
        columns = LightweightColumns(inference: inference, source: source, destination: destination)
        let links = JoinTableCopy(inference: inference, source: source, destination: destination)
        var kept: [String: JoinTableCopy.InPlace] = [:], claimed: Set<String> = []
        for join in destination.joinTables {
            if let found = links.inPlace(join), claimed.insert(found.source).inserted { kept[join.name] = found }
        }
        joinsInPlace = kept
        keptJoinSources = claimed
    }

    var q: (String) -> String { SQLIdentifier.quote }

    /// What the step does to each destination table, for the plan's findings and tests: `kept`
    /// is a join table kept in place, renamed where its names change (``JoinTableCopy/inPlace(_:)``).
    enum TableMethod: Equatable { case altered, rebuilt, created, kept }

    /// The step's statements, in order: the schema changes (run in one transaction), then the
    /// index builds (run with the sorter set up for them, ``StoreConnection/buildIndexes(_:)``).
    struct Statements {
        var changes: [SQLStatement] = []
        var indexes: [SQLStatement] = []
        /// Derived attributes' values and triggers for the destination, made last (see ``derived()``).
        var derived: [SQLStatement] = []
        /// Each rebuilt table's copy of its rows (one `INSERT … SELECT` among `changes`), with the
        /// destination table it fills: the rows it inserts are what the step counts them by.
        var copies: [SQLStatement: String] = [:]
    }

    /// Every statement of the step on a store whose indexes and triggers are `schema`.
    func statements(schema: SchemaObjects) -> Statements {
        let methods = tableMethods()
        var result = Statements()
        let (drops, dropped) = dropObjects(schema, methods: methods)
        result.changes = drops
        var renames: [(from: String, to: String)] = []
        let (rebuilds, altered) = makeTables(methods: methods, renames: &renames, copies: &result.copies)
        let lookups = lookupIndexes(methods: methods, schema: schema)
        result.changes +=
            lookups.map(\.create) + rebuilds + makeJoinTables(methods: methods, renames: &renames) + lookups.map(\.drop)
        // Altered tables change in place; their old names move aside first so tables can swap names.
        for (table, origin) in altered {
            result.changes += alter(origin, into: table)
            guard origin.name != table.name else { continue }
            let temporary = "_chrysalis_move_" + table.name
            result.changes.append(SQLStatement("ALTER TABLE \(q(origin.name)) RENAME TO \(q(temporary))"))
            renames.append((temporary, table.name))
        }
        result.changes += renameJoinsInPlace(renames: &renames)
        for table in sourceTables
        where !altered.contains(where: { $0.origin.name == table }) && !keptJoinSources.contains(table) {
            result.changes.append(SQLStatement("DROP TABLE IF EXISTS \(q(table))"))
        }
        for rename in renames where rename.from != rename.to {
            result.changes.append(SQLStatement("ALTER TABLE \(q(rename.from)) RENAME TO \(q(rename.to))"))
        }
        result.changes += history(schema)
        let remaining = schema.indexNames.subtracting(dropped)
        result.indexes =
            wantedIndexes.filter { !remaining.contains($0.value.name) }.map(\.key).sorted().map { SQLStatement($0) }
            + rebuiltLeftovers(schema, methods: methods)
        result.derived = derived()
        return result
    }

    /// An index for each table a rebuilt table's copy searches by a column (see
    /// ``LightweightColumns/Lookup``), made before the copies and dropped after them, before any
    /// column it covers could be dropped.
    private func lookupIndexes(methods: [String: TableMethod], schema: SchemaObjects) -> [(
        create: SQLStatement, drop: SQLStatement
    )] {
        let lookups = destination.tables.filter { methods[$0.name] == .rebuilt }.flatMap { table in
            columns.columns(of: table).flatMap { column -> [LightweightColumns.Lookup] in
                if case .computed(_, let lookups) = column.value { return lookups } else { return [] }
            }
        }
        var seen: Set<LightweightColumns.Lookup> = []
        return lookups.filter { seen.insert($0).inserted && !indexed($0, schema: schema) }.map { lookup in
            let name = q("_chrysalis_lookup_\(lookup.table)_\(lookup.column)")
            return (
                SQLStatement("CREATE INDEX IF NOT EXISTS \(name) ON \(q(lookup.table)) (\(q(lookup.column)))"),
                SQLStatement("DROP INDEX IF EXISTS \(name)")
            )
        }
    }

    /// Whether the store already has an index led by the lookup's column, kept until the copies
    /// are done (Core Data indexes every to-one's key, a join table's second column, and its
    /// primary key leads with the first).
    private func indexed(_ lookup: LightweightColumns.Lookup, schema: SchemaObjects) -> Bool {
        if source.joinTables.contains(where: { $0.name == lookup.table && $0.columns.first == lookup.column }) {
            return true
        }
        return StoreSchema(layout: source).indexes.contains { index in
            index.table == lookup.table && schema.indexNames.contains(index.name)
                && index.columns.first.map { String($0.prefix { $0 != " " }) } == lookup.column
        }
    }

    /// The source's tables and join tables, in layout order.
    private var sourceTables: [String] {
        var seen: Set<String> = []
        return (source.tables.map(\.name) + source.joinTables.map(\.name)).filter { seen.insert($0).inserted }
    }

    /// Core Data's indexes for the destination, by the statement that creates each.
    private var wantedIndexes: [String: StoreSchema.Index] {
        Dictionary(
            StoreSchema(layout: destination).indexes.map { ($0.statement.sql, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Derived-attribute triggers and indexes name old columns. An index already exactly as the
    /// destination wants it (same name, same statement) stays, so an `ALTER` step does not
    /// rebuild untouched indexes; the rest are dropped here and Core Data's recreated at the end.
    /// Returns the statements and the names of the indexes they drop.
    private func dropObjects(_ schema: SchemaObjects, methods: [String: TableMethod]) -> ([SQLStatement], Set<String>) {
        let tables = Set(sourceTables), wanted = wantedIndexes
        let wantedNames = Set(wanted.values.map(\.name))
        let alteredOrigins = Set(
            destination.tables.filter { methods[$0.name] == .altered }.compactMap { originTable(of: $0)?.name }
        )
        .union(keptJoinSources)
        var statements: [SQLStatement] = [], dropped: Set<String> = []
        for object in schema.objects where tables.contains(object.table) {
            if object.type == "index", let index = wanted[object.sql], index.name == object.name,
                canKeep(index.columns, on: index.table, methods: methods)
            {
                continue
            }
            // An index Core Data made under another era's or layout's name stays on a table that
            // keeps its columns, as Core Data keeps it (it adds the new name beside the old: Wire's
            // 2.39 store has `ZUSER_ZNORMALIZEDNAME_INDEX` and `Z_User_normalizedName`).
            if object.isNamedAsCoreData, !wantedNames.contains(object.name),
                canKeep(object.indexedColumns, on: object.table, methods: methods, filled: true)
            {
                continue
            }
            if object.type == "index" { dropped.insert(object.name) }
            // A table that is not altered or kept is dropped after the copies, its indexes with it: until
            // then they serve the copies' sorts and look-ups (an ordered to-many's window reads
            // its key's index instead of sorting the table).
            if object.type == "index" && !alteredOrigins.contains(object.table) { continue }
            statements.append(SQLStatement("DROP \(object.type.uppercased()) IF EXISTS \(q(object.name))"))
        }
        return (statements, dropped)
    }

    /// The indexes Core Data made under another era's or layout's name on a table the step
    /// rebuilds under the same name with every column they cover: made again as they were. Core
    /// Data changes such a table in place and never drops them (Wire's 2.68 store keeps the
    /// `Z_AssetClientMessage_…` indexes its 2.67 store had, where this step rebuilds `ZMESSAGE` to
    /// renumber its entity columns; `NextRealStoreTests`).
    private func rebuiltLeftovers(_ schema: SchemaObjects, methods: [String: TableMethod]) -> [SQLStatement] {
        let wantedNames = Set(wantedIndexes.values.map(\.name))
        return schema.objects.filter { object in
            guard object.isNamedAsCoreData, !wantedNames.contains(object.name),
                let table = destination.tables.first(where: { $0.name == object.table }),
                methods[table.name] == .rebuilt, originTable(of: table)?.name == table.name
            else { return false }
            let columns = Set(table.columns.map(\.name) + ["Z_PK", "Z_ENT", "Z_OPT"])
            return !object.indexedColumns.isEmpty && object.indexedColumns.allSatisfy(columns.contains)
        }.map { SQLStatement($0.sql) }
    }

    /// New tables created, rebuilt tables created under a temporary name and filled (their renames
    /// added to `renames`); returns those statements and the tables to alter, with their origins.
    private func makeTables(
        methods: [String: TableMethod], renames: inout [(from: String, to: String)],
        copies: inout [SQLStatement: String]
    )
        -> ([SQLStatement], [(table: StoreLayout.Table, origin: StoreLayout.Table)])
    {
        var statements: [SQLStatement] = []
        var altered: [(table: StoreLayout.Table, origin: StoreLayout.Table)] = []
        for table in destination.tables {
            let origin = originTable(of: table)
            switch (methods[table.name], origin) {
            case (.altered?, let origin?):
                altered.append((table, origin))
            case (.rebuilt?, let origin?):
                let temporary = "_chrysalis_new_" + table.name
                statements.append(create(table, named: temporary))
                let copied = copy(into: temporary, from: origin, table: table)
                for statement in copied { copies[statement] = table.name }
                statements += copied
                renames.append((temporary, table.name))
            default:
                statements.append(create(table, named: table.name))
            }
        }
        return (statements, altered)
    }

    /// Every join table but those kept is made anew under a temporary name and filled from
    /// wherever the source kept those links.
    private func makeJoinTables(methods: [String: TableMethod], renames: inout [(from: String, to: String)])
        -> [SQLStatement]
    {
        var statements: [SQLStatement] = []
        for join in destination.joinTables where methods[join.name] != .kept {
            let temporary = "_chrysalis_new_" + join.name
            let keys = join.sides.map(\.column) + (join.sourceColumn.map { [$0] } ?? [])
            statements.append(
                SQLStatement(
                    """
                    CREATE TABLE \(q(temporary)) \
                    (\(join.columns.map { "\(q($0)) INTEGER" }.joined(separator: ", ")), PRIMARY KEY \
                    (\(keys.map(q).joined(separator: ", "))))
                    """
                ))
            if let fill = JoinTableCopy(inference: inference, source: source, destination: destination).fill(
                temporary, join: join)
            {
                statements.append(fill)
            }
            renames.append((temporary, join.name))
        }
        return statements
    }

    /// How each destination table will be made: altered in place, rebuilt, or created empty; a
    /// join table is rebuilt unless the source's of the same name already holds exactly its links
    /// (kept). Needs no store: the plan shows it.
    func tableMethods() -> [String: TableMethod] {
        let columns = self.columns
        var methods: [String: TableMethod] = [:]
        var alteredOrigins: Set<String> = []
        for table in destination.tables {
            guard let origin = originTable(of: table) else {
                methods[table.name] = .created
                continue
            }
            if Self.canAlter(columns.columns(of: table), origin: origin), alteredOrigins.insert(origin.name).inserted {
                methods[table.name] = .altered
            } else {
                methods[table.name] = .rebuilt
            }
        }
        // A join table no source table holds links for is new: made empty, not a rewrite.
        let links = JoinTableCopy(inference: inference, source: source, destination: destination)
        for join in destination.joinTables {
            methods[join.name] =
                joinsInPlace[join.name] != nil ? .kept : links.fill(join.name, join: join) == nil ? .created : .rebuilt
        }
        return methods
    }

    /// The join tables kept in place moved aside and their columns renamed (through temporary
    /// names, so two columns can trade names); `renames` gets their moves to their new names.
    private func renameJoinsInPlace(renames: inout [(from: String, to: String)]) -> [SQLStatement] {
        var statements: [SQLStatement] = []
        for (name, kept) in joinsInPlace.sorted(by: { $0.key < $1.key })
        where kept.source != name || !kept.columns.isEmpty {
            let temporary = "_chrysalis_move_" + name
            statements.append(SQLStatement("ALTER TABLE \(q(kept.source)) RENAME TO \(q(temporary))"))
            let columns = kept.columns.sorted { $0.key < $1.key }
            for (from, _) in columns {
                statements.append(
                    SQLStatement("ALTER TABLE \(q(temporary)) RENAME COLUMN \(q(from)) TO \(q("_chrysalis_" + from))"))
            }
            for (from, to) in columns {
                statements.append(
                    SQLStatement("ALTER TABLE \(q(temporary)) RENAME COLUMN \(q("_chrysalis_" + from)) TO \(q(to))"))
            }
            renames.append((temporary, name))
        }
        return statements
    }

    /// The source table a destination table takes its rows from (hierarchies never merge).
    func originTable(of table: StoreLayout.Table) -> StoreLayout.Table? {
        let members = destination.numbering.numbers(
            inHierarchyOf: destination.numbering.number(of: table.rootEntity) ?? 0
        )
        .compactMap { destination.numbering.name(of: $0) }
        return members.compactMap { inference.entitySources[$0] }.compactMap { source.table(for: $0) }.first
    }

    /// Whether an index covering `indexed` on `indexTable` can stay: its table is kept, or altered
    /// under the same name with every column the index covers kept as it is (or, when `filled`,
    /// kept under its name with its empty values filled: SQLite keeps the index up to date).
    private func canKeep(
        _ indexed: [String], on indexTable: String, methods: [String: TableMethod], filled: Bool = false
    ) -> Bool {
        if keptJoinSources.contains(indexTable) { return true }  // every column as it was, maybe renamed
        guard let table = destination.tables.first(where: { $0.name == indexTable }), methods[table.name] == .altered,
            originTable(of: table)?.name == table.name
        else { return false }
        let plan = columns.columns(of: table)
        return indexed.allSatisfy { expression in
            let name = String(expression.prefix { $0 != " " })
            return plan.contains { column in
                guard column.name == name, case .source(name, let fill) = column.value else { return false }
                return fill == nil || filled
            }
        }
    }

    /// A table can change in place when every column is a kept source column, a constant, or a
    /// new column computed from the row and its table alone (no look-up into another table: an
    /// ordered to-many's positions), and no source column feeds two new ones. A column the
    /// origin has whose value is computed (a new type, renumbered entities) needs a new table.
    private static func canAlter(_ plan: [LightweightColumns.Column], origin: StoreLayout.Table) -> Bool {
        var used: Set<String> = []
        for column in plan {
            switch column.value {
            case .computed(_, let lookups):
                if !lookups.isEmpty || origin.columns.contains(where: { $0.name == column.name }) { return false }
            case .source(let name, _): if !used.insert(name).inserted { return false }
            case .constant: break
            }
        }
        return true
    }

    private func create(_ table: StoreLayout.Table, named name: String) -> SQLStatement {
        let columns =
            ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            + table.columns.map { "\(q($0.name)) \($0.sqlType)" }
        return SQLStatement("CREATE TABLE \(q(name)) ( \(columns.joined(separator: ", ")) )")
    }

    /// The source entity numbers whose rows the destination table keeps (renumbered).
    func sourceEntityNumbers(for table: StoreLayout.Table) -> [Int] {
        let members = destination.numbering.numbers(
            inHierarchyOf: destination.numbering.number(of: table.rootEntity) ?? 0
        )
        .compactMap { destination.numbering.name(of: $0) }
        return members.compactMap { inference.entitySources[$0] }.compactMap { source.numbering.number(of: $0) }
    }

    /// A rebuilt table's rows: the surviving source entities' rows, renumbered, with every
    /// column's new value.
    private func copy(into temporary: String, from origin: StoreLayout.Table, table: StoreLayout.Table)
        -> [SQLStatement]
    {
        let remap = columns
        let numbers = sourceEntityNumbers(for: table)
        guard !numbers.isEmpty else { return [] }
        let newEntity = remap.remap("s.Z_ENT")
        var names = ["Z_PK", "Z_ENT", "Z_OPT"], values = ["s.Z_PK", newEntity, "s.Z_OPT"]
        var arguments: [SQLValue] = []
        for column in remap.columns(of: table) {
            let applies = "(\(newEntity)) IN (\(column.applies.map(String.init).joined(separator: ",")))"
            let expression: String
            switch column.value {
            case let .source(name, fill):
                expression = fill == nil ? "s.\(q(name))" : "COALESCE(s.\(q(name)), ?)"
                if let fill { arguments.append(fill) }
            case .constant(let value):
                expression = "?"
                arguments.append(value)
            case .computed(let sql, _): expression = sql
            }
            names.append(q(column.name))
            values.append(column.applies.isEmpty ? "NULL" : "CASE WHEN \(applies) THEN \(expression) END")
        }
        // In key order: a window (an ordered to-many's positions) reads the rows in its key's
        // order, and inserting them so into the new table split its pages all over and made the
        // copy far slower; a plain scan is in key order already and SQLite sorts nothing.
        return [
            SQLStatement(
                """
                INSERT INTO \(q(temporary)) (\(names.joined(separator: ", "))) SELECT \
                \(values.joined(separator: ", ")) FROM \(q(origin.name)) s WHERE s.Z_ENT IN \
                (\(numbers.map(String.init).joined(separator: ","))) ORDER BY s.Z_PK
                """,
                arguments)
        ]
    }
}
