import ObjectModel

extension MappingMigration {
    /// Runs the `mappings` (in order, as passes into one destination) over the store at `path`,
    /// as one step on its own: for tests and the bench; an app runs a plan (``MigrationRunner``).
    package static func run(
        store path: String, from source: ModelBundle.Version, to destination: ModelBundle.Version,
        mappings: [MappingModel], options: MigrationOptions = MigrationOptions()
    ) throws -> MigrationReport {
        try run(store: path, from: source, to: destination, mappings: mappings, context: options.stepContext)
    }
}
