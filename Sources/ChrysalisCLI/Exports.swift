// An app's build of the command line registers policies and hooks, which are the engine's
// types (`PolicyRegistry`, `EntityMigrationPolicy`, `MigrationManager`): importing ChrysalisCLI
// is enough to write them.
@_exported import MigrationEngine
