// An app's build of the command line registers policies and hooks, which are the engine's
// types (`PolicyRegistry`, `EntityMigrationPolicy`, `MigrationManager`) over the store's
// (`ObjectID`, `StoreValue`) and the model's (`EntityMapping`'s entities): importing ChrysalisCLI
// is enough to write them. What those modules keep for each other is `package`, not exported.
@_exported import MigrationEngine
@_exported import ObjectModel
@_exported import SQLiteStore
