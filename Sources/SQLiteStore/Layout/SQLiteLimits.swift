import ObjectModel

/// What a model asks of SQLite that SQLite cannot hold, found from the layout before any file is
/// written: a command that would make such a store says so first, with the fix, instead of
/// failing half way with SQLite's own words and a partial file.
package enum SQLiteLimits {
    /// The most columns a table may have: SQLite's default `SQLITE_MAX_COLUMN`, which a program
    /// may lower at run time but never raise (Core Data's own SQLite has the same default, so an
    /// app cannot have a store with a wider table either).
    package static let columns = 2000

    /// One problem for each table of `layout` wider than ``columns``: an entity hierarchy's
    /// table holds `Z_PK`, `Z_ENT`, `Z_OPT` and a column for every stored attribute and to-one of
    /// every entity in it.
    package static func problems(of layout: StoreLayout) -> [ModelProblem] {
        layout.tables.compactMap { table in
            let count = table.columns.count + 3
            guard count > columns else { return nil }
            return ModelProblem(
                entity: table.rootEntity,
                message:
                    """
                    its hierarchy's table \(table.name) would have \(count) columns, and SQLite holds at most \
                    \(columns) in a table
                    """,
                fix:
                    """
                    move \(count - columns) or more attributes or to-one relationships to another entity (a to-one \
                    to a new entity holds them without limit)
                    """,
                verdict: .unsupported)
        }
    }
}

extension ModelBundle.Version {
    /// Why no store can be made or migrated at this version: Core Data refuses the model,
    /// Chrysalis cannot read part of it (``refusal``), or SQLite cannot hold its layout.
    package var storeRefusal: ModelFinding? {
        refusal ?? layoutFindings.first
    }

    /// What SQLite cannot hold of this version's layout; empty for a version ``refusal`` already
    /// stops (its layout is not worked out).
    package var layoutFindings: [ModelFinding] {
        guard refusal == nil else { return [] }
        return layoutFindings(of: StoreLayout(model: model))
    }

    /// What SQLite cannot hold of `layout`, this version's predicted layout.
    private func layoutFindings(of layout: StoreLayout) -> [ModelFinding] {
        SQLiteLimits.problems(of: layout).map { ModelFinding($0, file: "\(name).xcdatamodel") }
    }

    /// Throws ``storeRefusal`` as an error that names the version and what it is needed for.
    ///
    /// - Parameters:
    ///   - purpose: What the version is needed for, said in the error.
    ///   - layout: The version's predicted layout, when the caller has it already.
    /// - Throws: A `ModelFileError` naming the version, when it cannot be used or laid out.
    package func requireStorable(for purpose: String, layout: StoreLayout? = nil) throws {
        try requireUsable(for: purpose)
        guard let finding = layoutFindings(of: layout ?? StoreLayout(model: model)).first else { return }
        var error = finding.error
        error.problem = "version \"\(name)\" cannot be used \(purpose): " + error.problem
        throw error
    }
}
