import SQLiteStore

/// Custom migration code for one entity mapping: Core Data's `NSEntityMigrationPolicy`, with
/// its seven hooks. Every hook has a default that does what Core Data's default does, so a
/// policy overrides only what it changes.
public protocol EntityMigrationPolicy {
    /// Before any instance of the mapping is created.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping about to run.
    ///   - manager: The running migration's manager: its models, ``MigrationManager/userInfo``
    ///     and ``MigrationManager/state(_:_:)``.
    /// - Throws: Anything, to stop the migration; the store is then put back as it was.
    func begin(_ mapping: EntityMapping, manager: MigrationManager) throws
    /// Stage 1, once per source instance: create its destination instance(s) and associate them.
    ///
    /// - Parameters:
    ///   - source: The source instance; read it with ``MigrationManager/sourceObject(_:)``.
    ///   - mapping: The entity mapping that visits it.
    ///   - manager: Where instances are inserted (``MigrationManager/insertDestination(_:_:)``)
    ///     and associated (``MigrationManager/associate(source:destination:mapping:)``).
    /// - Throws: Anything, to stop the migration; the store is then put back as it was.
    func createDestinationInstances(forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager)
        throws
    /// After the mapping's last source instance.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping whose instances are all created.
    ///   - manager: The running migration's manager.
    /// - Throws: Anything, to stop the migration; the store is then put back as it was.
    func endInstanceCreation(for mapping: EntityMapping, manager: MigrationManager) throws
    /// Stage 2, once per destination instance the mapping created: set its relationships.
    ///
    /// - Parameters:
    ///   - destination: A destination instance the mapping created in stage 1.
    ///   - mapping: The entity mapping that created it.
    ///   - manager: Where relationships are set (``MigrationManager/relateDestination(_:_:to:)``)
    ///     and associations looked up.
    /// - Throws: Anything, to stop the migration; the store is then put back as it was.
    func createRelationships(forDestination destination: ObjectID, in mapping: EntityMapping, manager: MigrationManager)
        throws
    /// After the mapping's relationships.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping whose relationships are all set.
    ///   - manager: The running migration's manager.
    /// - Throws: Anything, to stop the migration; the store is then put back as it was.
    func endRelationshipCreation(for mapping: EntityMapping, manager: MigrationManager) throws
    /// Stage 3: checks of your own, after Chrysalis validated the destination model's rules.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping to check.
    ///   - manager: The running migration's manager, to read the destination.
    /// - Throws: An error naming what is invalid, to stop the migration; the store is then put
    ///   back as it was.
    func performCustomValidation(for mapping: EntityMapping, manager: MigrationManager) throws
    /// After everything.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping that is done.
    ///   - manager: The running migration's manager.
    /// - Throws: Anything, to stop the migration; the store is then put back as it was.
    func end(_ mapping: EntityMapping, manager: MigrationManager) throws
    /// `FUNCTION($entityPolicy, "selector:", arguments…)` in a value expression of this policy's
    /// entity mapping: Core Data sends the policy the Objective-C message `selector`
    /// (`-authorDisplayForAuthors:`), with the arguments evaluated. Answer the selectors your
    /// mapping models name; return `nil` for any other, and the migration stops naming it.
    ///
    /// - Parameters:
    ///   - selector: The Objective-C selector the expression names.
    ///   - arguments: The expression's arguments, evaluated.
    ///   - manager: The running migration's manager.
    /// - Returns: The value, or `nil` for a selector the policy does not answer.
    /// - Throws: Anything, to stop the migration; the store is then put back as it was.
    func function(_ selector: String, arguments: [ExpressionValue], manager: MigrationManager) throws
        -> ExpressionValue?
    /// Whether ``createRelationships(forDestination:in:manager:)`` is Core Data's default, so
    /// Chrysalis may set the mapping's relationships with set-based SQL instead of calling it per
    /// object. True unless you override that hook; then return false.
    var usesDefaultRelationships: Bool { get }
}

extension EntityMigrationPolicy {
    /// Core Data's default: nothing.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping about to run.
    ///   - manager: The running migration's manager.
    /// - Throws: Nothing; an override may throw to stop the migration.
    public func begin(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Core Data's default: one destination instance with the mapping's attribute values,
    /// associated with its source (``MigrationManager/createDefaultDestinationInstance(forSource:in:)``).
    ///
    /// - Parameters:
    ///   - source: The source instance.
    ///   - mapping: The entity mapping that visits it.
    ///   - manager: Where the instance is inserted and associated.
    /// - Throws: A `MigrationError` when a value expression cannot be evaluated or gives a value
    ///   its attribute cannot hold; a `StoreError` when the destination cannot be written.
    public func createDestinationInstances(
        forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultDestinationInstance(forSource: source, in: mapping)
    }

    /// Core Data's default: nothing.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping whose instances are all created.
    ///   - manager: The running migration's manager.
    /// - Throws: Nothing; an override may throw to stop the migration.
    public func endInstanceCreation(for mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Core Data's default: the mapping's relationship expressions evaluated and set
    /// (``MigrationManager/createDefaultRelationships(forDestination:in:)``).
    ///
    /// - Parameters:
    ///   - destination: A destination instance the mapping created.
    ///   - mapping: The entity mapping that created it.
    ///   - manager: Where the relationships are set.
    /// - Throws: A `MigrationError` when a relationship expression cannot be evaluated; a
    ///   `StoreError` when the destination cannot be written.
    public func createRelationships(
        forDestination destination: ObjectID, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultRelationships(forDestination: destination, in: mapping)
    }

    /// Core Data's default: nothing.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping whose relationships are all set.
    ///   - manager: The running migration's manager.
    /// - Throws: Nothing; an override may throw to stop the migration.
    public func endRelationshipCreation(for mapping: EntityMapping, manager: MigrationManager) throws {}
    /// True: the default ``createRelationships(forDestination:in:manager:)`` is in use.
    public var usesDefaultRelationships: Bool { true }
    /// Core Data's default: nothing beyond the model's own rules.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping to check.
    ///   - manager: The running migration's manager.
    /// - Throws: Nothing; an override throws to say what is invalid.
    public func performCustomValidation(for mapping: EntityMapping, manager: MigrationManager) throws {}
    /// Core Data's default: nothing.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping that is done.
    ///   - manager: The running migration's manager.
    /// - Throws: Nothing; an override may throw to stop the migration.
    public func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}
    /// No selector answered: an expression that sends one stops the migration, naming it.
    ///
    /// - Parameters:
    ///   - selector: The Objective-C selector the expression names.
    ///   - arguments: The expression's arguments, evaluated.
    ///   - manager: The running migration's manager.
    /// - Returns: `nil`, for every selector.
    /// - Throws: Nothing; an override may throw to stop the migration.
    public func function(_ selector: String, arguments: [ExpressionValue], manager: MigrationManager) throws
        -> ExpressionValue?
    { nil }
}

/// The policy of entity mappings that name none: Core Data's defaults throughout.
public struct DefaultEntityMigrationPolicy: EntityMigrationPolicy {
    /// The default policy.
    public init() {}
}
