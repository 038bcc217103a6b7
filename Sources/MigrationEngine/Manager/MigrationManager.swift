import Foundation
import ObjectModel
import SQLiteStore

/// Runs mapping models over a source store into a destination store, in Core Data's three
/// stages, and is what policies talk to: Core Data's `NSMigrationManager`.
///
/// One manager serves one migration step; several mapping models run through it one after the
/// other into the same destination (multiple passes). Source rows stream in chunks; the
/// source → destination associations live on disk.
public final class MigrationManager {
    /// The model the source store is at.
    public let sourceModel: ManagedObjectModel
    /// The model the destination store is at.
    public let destinationModel: ManagedObjectModel
    /// The mapping model of the running pass.
    public internal(set) var mappingModel: MappingModel { didSet { lastMappingIndex = nil } }
    /// The entity mapping ``index(of:)`` found last.
    var lastMappingIndex: (name: String, index: Int)?
    /// Anything a policy wants to keep across instances and mappings, as Core Data's `userInfo`.
    ///
    /// A trap for state that changes per row: `[String: Any]` holds values, not references, so
    /// `var seen = manager.userInfo["seen"] as? [String: ObjectID] ?? [:]`, changed and stored
    /// back, copies the whole dictionary on every row: n rows cost n². Keep such state in
    /// ``state(_:_:)`` instead: it hands back the same box every time, changed in place, O(1)
    /// per row.
    public var userInfo: [String: Any] = [:]
    /// Called after every association, Core Data's `associate(sourceInstance:withDestinationInstance:for:)`
    /// override point (BookStore 5 fills `synopsis` here).
    public var didAssociate: ((MigrationManager, ObjectID?, ObjectID, EntityMapping) throws -> Void)?
    /// The destination entities ``didAssociate`` cares about (nil: all). Mappings to other
    /// entities can then still move set-based.
    public var didAssociateEntities: Set<String>?

    /// Destination attributes set as each instance of an entity is associated with its source,
    /// by destination entity: ``setOnAssociation(_:_:to:)``.
    public internal(set) var associationValues: [String: [(attribute: String, expression: Expression)]] = [:]

    /// The policies' state, by key type: ``state(_:_:)``.
    var stateBoxes: [ObjectIdentifier: AnyObject] = [:]
    /// The app's policies, by the names mapping models use.
    let policies: PolicyRegistry
    /// Whether eligible entity mappings move with set-based SQL (off only to compare the paths).
    package var useSetBasedSQL = true
    /// What the manager reads and writes through for the whole step: the stores, their readers
    /// and writer, the association table, the look-up indexes. Policies reach them only through
    /// the methods below.
    let stores: StepStores
    /// What the running pass has set up and changes as it runs (the resolved policies, the
    /// held-back insert, the object cache…): the pass's own value, which it hands the manager
    /// as it starts (``MappingPass``); before any pass, an empty one.
    var passState: PassState

    /// The run's state (``runState(_:_:)``), shared with the other steps of the plan.
    let run: MigrationRunState

    init(
        connection: StoreConnection, sourceStore: PersistentStore, sourceLayout: StoreLayout,
        destinationLayout: StoreLayout, destinationPath: String,
        mappingModel: MappingModel, policies: PolicyRegistry, cancellation: CancellationToken,
        run: MigrationRunState = MigrationRunState()
    ) {
        self.run = run
        sourceModel = sourceLayout.model
        destinationModel = destinationLayout.model
        self.mappingModel = mappingModel
        self.policies = policies
        stores = StepStores(
            connection: connection, sourceStore: sourceStore, sourceLayout: sourceLayout,
            destinationLayout: destinationLayout,
            destinationPath: destinationPath, cancellation: cancellation)
        passState = PassState(stores: stores)
    }

    // MARK: Reading the source

    /// A source instance with its attribute values and to-one destinations.
    /// - Parameter id: The source instance.
    /// - Returns: The instance as the source store holds it.
    /// - Throws: A `MigrationError` of kind `.evaluation` when there is no such instance; a `StoreError` when it cannot be read.
    public func sourceObject(_ id: ObjectID) throws -> StoredObject {
        guard let object = try passState.cachedObject(ObjectRef(side: .source, id: id)) else {
            throw MigrationError(.evaluation, "source object \(id) does not exist")
        }
        return object
    }

    /// Evaluates `expression` with `$source` and `$destination` bound.
    /// - Parameters:
    ///   - expression: The value expression.
    ///   - source: The instance `$source` names, if any.
    ///   - destination: The instance `$destination` names, if any.
    ///   - mapping: The entity mapping running, which `$entityMapping` and `$entityPolicy` name, if any.
    /// - Returns: The expression's value.
    /// - Throws: An error naming what cannot be evaluated (a missing key, a selector not allowed), what a policy's `function` throws, or a `StoreError`.
    public func evaluate(
        _ expression: Expression, source: ObjectID?, destination: ObjectID? = nil,
        mapping: EntityMapping? = nil
    ) throws -> ExpressionValue {
        let scope = MigrationScope(manager: self, source: source, destination: destination, mapping: mapping)
        return try ExpressionEvaluator(
            context: scope, evaluatedObject: source.map { .object(ObjectRef(side: .source, id: $0)) } ?? .null
        )
        .evaluate(expression)
    }

    // MARK: Writing the destination

    /// Inserts a destination instance; attributes not given take the model's defaults. The
    /// values and to-ones the policy sets on it before it inserts another instance or returns
    /// go into its one `INSERT`. The row is then queued and written with others of its table,
    /// several to a statement, and always before the policy (or Chrysalis) reads the destination,
    /// looks up in its table or writes anything but a new instance.
    /// - Parameters:
    ///   - entity: The destination entity.
    ///   - values: Attribute values by name; the rest take the model's defaults.
    /// - Returns: The new instance's ID.
    /// - Throws: A `StoreError` when the entity or an attribute does not exist, a value does not fit, or the destination cannot be written.
    @discardableResult
    public func insertDestination(_ entity: String, _ values: [String: StoreValue] = [:]) throws -> ObjectID {
        try passState.queuePendingInsert()
        if let fold = passState.activeFold,
            try fold.foldsInsert(of: entity, visiting: passState.visitingSource != nil, writer: stores.writer),
            let source = passState.visitingSource?.id, let toOne = passState.visitingSource?.toOne
        {
            var pending = try stores.writer.prepareInsert(entity, values)
            try fold.setToOnes(of: &pending, from: toOne, writer: stores.writer)
            fold.inserted(pending.id, for: source)
            passState.pendingInsert = pending
            return pending.id
        }
        let pending = try stores.writer.prepareInsert(entity, values)
        passState.pendingInsert = pending
        return pending.id
    }

    /// Changes attribute values of a destination instance: O(1) for the one inserted last.
    /// - Parameters:
    ///   - id: A destination instance.
    ///   - values: The new attribute values by name; others are kept.
    /// - Throws: A `StoreError` when an attribute does not exist, a value does not fit, or the destination cannot be written.
    public func setDestinationValues(_ id: ObjectID, _ values: [String: StoreValue]) throws {
        passState.forgetCachedObjects()
        if var pending = passState.pendingInsert, pending.id == id {
            try stores.writer.set(values, in: &pending)
            passState.pendingInsert = pending
            return
        }
        try passState.writePendingInsert()
        // The object is being created by this migration (Core Data saves it once): no new version.
        try stores.writer.update(id, values, countsChange: false)
    }

    /// Sets a destination relationship to exactly `destinations`: O(1) for a to-one of the
    /// instance inserted last, O(log n) per destination otherwise (a to-many's old members are
    /// found through an index made on first use).
    /// - Parameters:
    ///   - id: A destination instance.
    ///   - relationship: One of its relationships.
    ///   - destinations: Its new destinations (at most one for a to-one; none clears it).
    /// - Throws: A `StoreError` when the relationship does not exist, a destination is of the wrong entity, or the destination cannot be written.
    public func relateDestination(_ id: ObjectID, _ relationship: String, to destinations: [ObjectID]) throws {
        passState.forgetCachedObjects()
        try stopFolding()
        if var pending = passState.pendingInsert, pending.id == id,
            try stores.writer.relate(&pending, relationship, to: destinations)
        {
            passState.pendingInsert = pending
            return
        }
        try passState.writePendingInsert()
        try prepareMemberLookups(of: id, relationship)
        try stores.writer.relate(id, relationship, to: destinations)
    }

    /// Adds `destinations` to a destination to-many relationship: O(log n) per destination.
    /// - Parameters:
    ///   - id: A destination instance.
    ///   - relationship: One of its to-many relationships.
    ///   - destinations: The instances to add to it.
    /// - Throws: A `StoreError` when the relationship does not exist, a destination is of the wrong entity, or the destination cannot be written.
    public func addDestination(_ id: ObjectID, _ relationship: String, _ destinations: [ObjectID]) throws {
        passState.forgetCachedObjects()
        try stopFolding()
        // Queued, not written: the writer writes its queues before it reads or updates anything,
        // and an unordered many-to-many's new links join the queue (QueuedInserts.swift).
        try passState.queuePendingInsert()
        try prepareMemberLookups(of: id, relationship, adding: true)
        try stores.writer.add(id, relationship, destinations)
    }

    /// A relationship written by hand: folded to-ones could differ from what stage 2 would
    /// write, so stage 2 writes them (see ``FoldedToOnes``). Ending a fold may write to its
    /// instance, so that instance's row is written first.
    private func stopFolding() throws {
        if passState.foldedToOnes.values.contains(where: \.hasPending) { try passState.writePendingInsert() }
        for fold in passState.foldedToOnes.values { try fold.stop(stores.writer) }
    }

    /// A destination instance as written so far.
    /// - Parameter id: A destination instance.
    /// - Returns: The instance, or `nil` when there is none.
    /// - Throws: A `StoreError` when the destination cannot be read or written.
    public func destinationObject(_ id: ObjectID) throws -> StoredObject? {
        try passState.writePendingInsert()
        return try stores.destinationReader.object(id)
    }

    /// Every destination instance of `entity` written so far (its subentities' too, unless
    /// `includingSubentities` is false), by key: Core Data's fetch with no predicate in the
    /// destination context, as a policy's `end` makes it (WordPress's `AccountToAccount22to23`
    /// goes through every account once all are migrated).
    /// - Parameters:
    ///   - entity: A destination entity.
    ///   - includingSubentities: Whether its subentities' instances count too.
    /// - Returns: The instances, by key.
    /// - Throws: A `MigrationError` of kind `.evaluation` when the destination model has no such entity; a `StoreError` when it cannot be read.
    public func destinationInstances(of entity: String, includingSubentities: Bool = true) throws -> [ObjectID] {
        guard destinationModel.entity(named: entity) != nil else {
            throw MigrationError(
                .evaluation, "the destination model has no entity \(entity)",
                fix: "use one of: \(destinationModel.entities.map(\.name).joined(separator: ", "))")
        }
        try passState.writePendingInsert()
        var found: [ObjectID] = []
        try stores.destinationReader.forEachObject(of: entity, includingSubentities: includingSubentities) {
            found.append($0.id)
        }
        return found
    }

    // MARK: Core Data's defaults

    /// Stage 1's default: one destination instance with the attribute mappings' values, associated.
    /// - Parameters:
    ///   - source: The source instance.
    ///   - mapping: The entity mapping that visits it.
    /// - Returns: The new instance, or `nil` when the mapping has no destination entity in the destination store.
    /// - Throws: A `MigrationError` of kind `.evaluation` when a value expression fails or gives a value its attribute cannot hold; a `StoreError`.
    @discardableResult
    public func createDefaultDestinationInstance(forSource source: ObjectID, in mapping: EntityMapping) throws
        -> ObjectID?
    {
        guard let entity = mapping.destinationEntity, stores.destinationLayout.hasEntity(entity) else { return nil }
        let values = try attributeValues(
            attributeAssignments(of: mapping, entity: entity), mapping: mapping, source: source, destination: nil)
        let destination = try insertDestination(entity, values)
        try associate(source: source, destination: destination, mapping: mapping)
        return destination
    }

    /// `mapping`'s attribute assignments to an instance of `entity`, worked out on first use in the pass.
    private func attributeAssignments(of mapping: EntityMapping, entity: String) -> AttributeAssignments {
        if let known = passState.attributeAssignmentsByMapping[mapping.name], known.entity == entity {
            return known.assignments
        }
        let made = AttributeAssignments(
            mapping: mapping, entity: entity, sourceLayout: stores.sourceLayout,
            destinationLayout: stores.destinationLayout)
        passState.attributeAssignmentsByMapping[mapping.name] = (entity, made)
        return made
    }

    /// Evaluates value expressions for an instance and converts each result to what its attribute
    /// holds; a plain `$source.<attribute>` is read from the source row (``AttributeAssignments``).
    func attributeValues(
        _ plan: AttributeAssignments, mapping: EntityMapping, source: ObjectID?, destination: ObjectID?
    ) throws -> [String: StoreValue] {
        var values: [String: StoreValue] = [:]
        values.reserveCapacity(plan.assignments.count)
        let copiedFrom = source.flatMap { $0.entityNumber == plan.sourceEntityNumber ? $0 : nil }
        let sourceRow = try copiedFrom.flatMap { try passState.cachedObject(ObjectRef(side: .source, id: $0)) }
        for assignment in plan.assignments {
            let value: ExpressionValue
            if let key = assignment.copiedKey, let sourceRow {
                value = .value(sourceRow.values[key] ?? .null)
            } else {
                value = try evaluateProperty(
                    assignment.expression, property: assignment.name, mapping: mapping, source: source,
                    destination: destination)
            }
            let attribute = assignment.attribute
            guard let converted = value.storeValue(for: attribute.attributeType.expressionKind) else {
                throw MigrationError(
                    .evaluation,
                    """
                    \(mapping.name).\(assignment.name): \(assignment.text ?? assignment.expression.description) \
                    gave \(value.readable), which a \(attribute.attributeType.displayName) attribute cannot hold \
                    (source object \(source.map(\.description) ?? "none"))
                    """,
                    fix: "change the value expression so it yields a \(attribute.attributeType.displayName)")
            }
            values[assignment.name] = converted
        }
        return values
    }

    /// Stage 2's default: every relationship mapping's expression, evaluated for the source the
    /// destination instance came from, sets that relationship.
    /// - Parameters:
    ///   - destination: A destination instance the mapping created.
    ///   - mapping: The entity mapping that created it.
    /// - Throws: A `MigrationError` of kind `.evaluation` when a relationship expression cannot be evaluated; a `StoreError`.
    public func createDefaultRelationships(forDestination destination: ObjectID, in mapping: EntityMapping) throws {
        try createDefaultRelationships(forDestination: destination, in: mapping, skipping: [])
    }

    func createDefaultRelationships(
        forDestination destination: ObjectID, in mapping: EntityMapping, skipping: Set<String>
    ) throws {
        let source = try sourceInstances(forEntityMappingNamed: mapping.name, destinationInstances: [destination]).first
        guard let entity = mapping.destinationEntity, let description = destinationModel.entity(named: entity) else {
            return
        }
        for property in mapping.relationshipMappings where !skipping.contains(property.name) {
            guard let expression = property.expression,
                let relationship = destinationModel.relationship(named: property.name, in: description)
            else { continue }
            let value = try evaluateProperty(
                expression, property: property.name, mapping: mapping, source: source, destination: destination)
            let targets = value.objects.filter { $0.side == .destination }.map(\.id)
            try relateDestination(
                destination, property.name, to: relationship.isToMany ? targets : Array(targets.prefix(1)))
        }
    }

    private func evaluateProperty(
        _ expression: Expression, property: String, mapping: EntityMapping, source: ObjectID?,
        destination: ObjectID? = nil
    ) throws -> ExpressionValue {
        do {
            return try evaluate(expression, source: source, destination: destination, mapping: mapping)
        } catch let error as EvaluationError {
            throw MigrationError(
                .evaluation,
                "\(mapping.name).\(property): \(error) (source object \(source.map(\.description) ?? "none"))",
                fix: "correct the value expression")
        }
    }

    /// Throws when the migration was asked to stop.
    /// - Throws: A `MigrationError` of kind `.cancelled` once the migration's token was cancelled.
    public func checkCancelled() throws { try stores.cancellation.check() }
}

extension AttributeType {
    /// The kind of value an expression result is converted to for this attribute type.
    var expressionKind: AttributeTypeName {
        switch self {
        case .integer16, .integer32, .integer64: return .integer
        case .double, .float: return .real
        case .decimal: return .decimal
        case .boolean: return .boolean
        case .date: return .date
        default: return .other
        }
    }
}
