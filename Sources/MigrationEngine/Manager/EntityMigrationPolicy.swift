import SQLiteStore

/// Custom migration code for one entity mapping: Core Data's `NSEntityMigrationPolicy`, with
/// its seven hooks. Every hook has a default that does what Core Data's default does, so a
/// policy overrides only what it changes.
public protocol EntityMigrationPolicy {
    /// Before any instance of the mapping is created.
    func begin(_ mapping: EntityMapping, manager: MigrationManager) throws
    /// Stage 1, once per source instance: create its destination instance(s) and associate them.
    func createDestinationInstances(forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager) throws
    /// After the mapping's last source instance.
    func endInstanceCreation(for mapping: EntityMapping, manager: MigrationManager) throws
    /// Stage 2, once per destination instance the mapping created: set its relationships.
    func createRelationships(forDestination destination: ObjectID, in mapping: EntityMapping, manager: MigrationManager) throws
    /// After the mapping's relationships.
    func endRelationshipCreation(for mapping: EntityMapping, manager: MigrationManager) throws
    /// Stage 3: checks of your own, after Chrysalis validated the destination model's rules.
    func performCustomValidation(for mapping: EntityMapping, manager: MigrationManager) throws
    /// After everything.
    func end(_ mapping: EntityMapping, manager: MigrationManager) throws
    /// `FUNCTION($entityPolicy, "selector:", arguments…)` in a value expression of this policy's
    /// entity mapping: Core Data sends the policy the Objective-C message `selector`
    /// (`-authorDisplayForAuthors:`), with the arguments evaluated. Answer the selectors your
    /// mapping models name; return `nil` for any other, and the migration stops naming it.
    func function(_ selector: String, arguments: [ExpressionValue], manager: MigrationManager) throws -> ExpressionValue?
    /// Whether ``createRelationships(forDestination:in:manager:)`` is Core Data's default, so
    /// Chrysalis may set the mapping's relationships with set-based SQL instead of calling it per
    /// object. True unless you override that hook; then return false.
    var usesDefaultRelationships: Bool { get }
}

extension EntityMigrationPolicy {
    public func begin(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    public func createDestinationInstances(forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager) throws {
        try manager.createDefaultDestinationInstance(forSource: source, in: mapping)
    }

    public func endInstanceCreation(for mapping: EntityMapping, manager: MigrationManager) throws {}

    public func createRelationships(forDestination destination: ObjectID, in mapping: EntityMapping, manager: MigrationManager) throws {
        try manager.createDefaultRelationships(forDestination: destination, in: mapping)
    }

    public func endRelationshipCreation(for mapping: EntityMapping, manager: MigrationManager) throws {}
    public var usesDefaultRelationships: Bool { true }
    public func performCustomValidation(for mapping: EntityMapping, manager: MigrationManager) throws {}
    public func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}
    public func function(_ selector: String, arguments: [ExpressionValue], manager: MigrationManager) throws -> ExpressionValue? { nil }
}

/// The policy of entity mappings that name none: Core Data's defaults throughout.
public struct DefaultEntityMigrationPolicy: EntityMigrationPolicy {
    /// The default policy.
    public init() {}
}
