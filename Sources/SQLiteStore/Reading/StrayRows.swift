internal import GRDB

/// Rows whose `Z_ENT` is no number of an entity stored in their table: what an app still on an
/// older model, or a hand-made insert, can leave. No entity owns them, so a mapping step's stage
/// 1 reads more rows than it can make objects of, and stops. Found by one scan per table with
/// the query that finds them, so that `plan` can name them before any step runs.
package struct StrayRows: Sendable, Equatable {
    /// The table, the rows, the entity numbers it may hold, and the query that lists them.
    package var table: String
    package var rows: Int
    package var numbers: [Int]
    package var query: String
}

extension StoreConnection {
    /// The stray rows of every table of `layout`, tables with none left out.
    package func strayRows(layout: StoreLayout) throws -> [StrayRows] {
        try converting {
            try layout.tables.compactMap { table -> StrayRows? in
                let numbers = layout.model.entities
                    .filter { layout.model.rootEntity(of: $0).name == table.rootEntity }
                    .compactMap { layout.numbering.number(of: $0.name) }.sorted()
                guard !numbers.isEmpty else { return nil }
                let list = numbers.map(String.init).joined(separator: ", ")
                let query =
                    """
                    SELECT Z_PK, Z_ENT FROM \(SQLIdentifier.quote(table.name)) WHERE Z_ENT IS NULL OR Z_ENT NOT IN \
                    (\(list))
                    """
                let rows =
                    try Int.fetchOne(
                        db,
                        sql:
                            """
                            SELECT count(*) FROM main.\(SQLIdentifier.quote(table.name)) WHERE Z_ENT IS NULL OR \
                            Z_ENT NOT IN (\(list))
                            """
                    ) ?? 0
                return rows == 0 ? nil : StrayRows(table: table.name, rows: rows, numbers: numbers, query: query)
            }
        }
    }
}
