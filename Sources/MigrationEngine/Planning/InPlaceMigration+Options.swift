import ObjectModel

extension InPlaceMigration {
    /// Migrates the store at `path` from `source` to `destination` by inference, as one step on its own.
    package static func run(
        store path: String, from source: ModelBundle.Version, to destination: ModelBundle.Version,
        options: MigrationOptions = MigrationOptions()
    ) throws -> MigrationReport {
        try run(store: path, from: source, to: destination, context: options.stepContext)
    }
}
