import Foundation
import ObjectModel
import SQLiteStore

/// The objects of a store at one model version, for a staged migration's handlers: what Core
/// Data's handlers reach through `migrationManager.container.viewContext`. Fetch the objects of an
/// entity (with a predicate in the syntax mapping filters use), read and set their attributes and
/// relationships, insert, delete, and save.
///
/// Changes go to the store as they are made, inside the plan's transaction, so a fetch sees them.
/// ``save()`` validates the objects changed since the last save by the rules Core Data applies
/// when a context saves (required attributes set, required to-ones set, to-many counts in their
/// bounds) and keeps the changes; what a handler leaves unsaved is discarded when it returns, as
/// an unsaved context's changes are. Nothing is kept at all unless the whole plan succeeds.
public final class MigrationContext {
    /// The version the store is at while the handler runs.
    public let version: String
    /// That version's model.
    public var model: ManagedObjectModel { layout.model }
    /// How many times the handler saved.
    public private(set) var saves = 0
    let path: String
    let layout: StoreLayout
    let connection: StoreConnection
    let reader: ObjectReader
    let writer: ObjectWriter
    /// Objects inserted or changed since the last save: the ones `save()` validates.
    private(set) var changed: Set<ObjectID> = []
    /// Changes since the last save, for the report of what was discarded.
    private(set) var unsavedChanges = 0
    /// Told of every change: the step's progress moves with it, and a cancel stops the handler there.
    var changeObserver: (() throws -> Void)?

    init(version: String, layout: StoreLayout, connection: StoreConnection, path: String) throws {
        (self.version, self.layout, self.connection, self.path) = (version, layout, connection, path)
        reader = ObjectReader(connection: connection, layout: layout, path: path)
        writer = ObjectWriter(connection: connection, layout: layout, path: path)
        try connection.execute(SQLStatement("SAVEPOINT chrysalis_handler"))
    }

    /// The objects of `entity` and its subentities, in `Z_PK` order, that match `predicate`
    /// (`name == "Fiction"`, `pages > 100 AND author != nil`, `title BEGINSWITH[c] "the"`).
    ///
    /// - Parameters:
    ///   - entity: The entity's name in the handler's version.
    ///   - predicate: A predicate over the object's keys, as an entity mapping's filter is written; nil for every object.
    /// - Returns: The objects, each read as the store has it now.
    /// - Throws: A ``MigrationError`` naming the entity or the predicate when either is wrong.
    public func fetch(_ entity: String, where predicate: String? = nil) throws -> [ManagedObject] {
        guard model.entity(named: entity) != nil else { throw unknownEntity(entity) }
        let filter: Predicate?
        do {
            filter = try predicate.map(ExpressionParser.predicate)
        } catch {
            throw MigrationError(
                .evaluation, "the predicate \(predicate ?? "") of a fetch of \(entity) in \(version): \(error)",
                fix: "correct the predicate")
        }
        var found: [ManagedObject] = []
        try reader.forEachObject(of: entity) { object in
            let candidate = ManagedObject(id: object.id, entity: object.entity, context: self)
            if let filter, !(try matches(filter, candidate, entity: entity)) { return }
            found.append(candidate)
        }
        return found
    }

    /// A new object of `entity`, with the model's default values, as `NSEntityDescription.insertNewObject` makes it.
    ///
    /// - Parameter entity: The name of a concrete entity of the handler's version.
    /// - Returns: The object, already in the store.
    /// - Throws: A ``MigrationError`` when the entity is unknown or abstract.
    public func insert(_ entity: String) throws -> ManagedObject {
        guard let description = model.entity(named: entity) else { throw unknownEntity(entity) }
        guard !description.isAbstract else {
            throw MigrationError(
                .validation, "\(entity) is abstract in \(version): no object can be inserted",
                fix: "insert one of its subentities")
        }
        let id = try writer.insert(entity, writer.defaultValues(of: entity))
        try writer.writeQueuedInserts()
        try didChange(id)
        return ManagedObject(id: id, entity: entity, context: self)
    }

    /// Deletes `object`, applying each relationship's delete rule as Core Data does: nullify
    /// unlinks, cascade deletes the destinations too, deny refuses while there are destinations,
    /// no action leaves the other side as it is.
    ///
    /// - Parameter object: An object of this context.
    /// - Throws: A ``MigrationError`` when a deny rule refuses the delete; nothing is deleted then.
    public func delete(_ object: ManagedObject) throws {
        try ContextDeletion(context: self).delete(object.objectID)
        changed.remove(object.objectID)
    }

    /// Validates the objects changed since the last save and keeps the changes.
    ///
    /// - Throws: A ``MigrationError`` of kind `validation` naming the object and the rule it breaks;
    ///   the changes stay unsaved then.
    public func save() throws {
        let keys = Dictionary(grouping: changed, by: \.entityNumber).mapValues { $0.map(\.primaryKey) }
        var check = ModelRuleCheck(layout: layout, connection: connection)
        check.place = "the store at \(version)"
        check.onlyKeys = keys
        try check.validate()
        try writer.finish()
        try connection.execute(SQLStatement("RELEASE chrysalis_handler"))
        try connection.execute(SQLStatement("SAVEPOINT chrysalis_handler"))
        changed = []
        unsavedChanges = 0
        saves += 1
    }

    /// Whether the handler changed something since its last save.
    public var hasChanges: Bool { unsavedChanges > 0 }

    /// What the handler left unsaved is undone; returns how many changes that was.
    func discardUnsaved() throws -> Int {
        let discarded = unsavedChanges
        try connection.execute(SQLStatement("ROLLBACK TO chrysalis_handler"))
        try connection.execute(SQLStatement("RELEASE chrysalis_handler"))
        return discarded
    }

    /// Notes a change to `id`.
    func didChange(_ id: ObjectID) throws {
        changed.insert(id)
        unsavedChanges += 1
        try changeObserver?()
    }

    /// Notes a change that leaves no object to validate (a delete).
    func didDelete(_ id: ObjectID) throws {
        changed.remove(id)
        unsavedChanges += 1
        try changeObserver?()
    }

    func unknownEntity(_ entity: String) -> MigrationError {
        MigrationError(
            .validation, "\(version) has no entity \(entity)",
            fix: "use one of: \(model.entities.map(\.name).sorted().joined(separator: ", "))")
    }

    private func matches(_ filter: Predicate, _ object: ManagedObject, entity: String) throws -> Bool {
        do {
            let evaluator = ExpressionEvaluator(
                context: ContextScope(context: self),
                evaluatedObject: .object(ObjectRef(side: .source, id: object.objectID)))
            return try evaluator.matches(filter)
        } catch let error as EvaluationError {
            throw MigrationError(
                .evaluation, "a fetch of \(entity) in \(version): \(error)", fix: "correct the predicate")
        }
    }
}
