import ObjectModel
import SQLiteStore

/// One object of a ``MigrationContext``, read and changed by key as `NSManagedObject` is
/// (`value(forKey:)`, `setValue(_:forKey:)`). Reads see the store as it is now, changes go to it
/// at once; the context's ``MigrationContext/save()`` validates and keeps them.
public final class ManagedObject {
    /// The object's ID in the store (entity number and `Z_PK`).
    public let objectID: ObjectID
    /// The object's concrete entity.
    public let entity: String
    /// The context the object belongs to, for as long as its handler runs.
    unowned let context: MigrationContext

    init(id: ObjectID, entity: String, context: MigrationContext) {
        (objectID, self.entity, self.context) = (id, entity, context)
    }

    /// The attribute `key`.
    ///
    /// - Parameter key: An attribute of the object's entity (inherited ones included).
    /// - Returns: Its value, `.null` when unset.
    /// - Throws: A ``MigrationError`` when the entity has no such attribute or the object is gone.
    public func value(forKey key: String) throws -> StoreValue {
        try requireAttribute(key)
        guard let stored = try context.reader.object(objectID) else { throw gone() }
        return stored.values[key] ?? .null
    }

    /// Sets the attribute `key` to `value`.
    ///
    /// - Parameters:
    ///   - value: The new value, of the attribute's type (`.null` to clear it).
    ///   - key: An attribute of the object's entity.
    /// - Throws: A ``MigrationError`` when the entity has no such attribute or the value does not fit it.
    public func setValue(_ value: StoreValue, forKey key: String) throws {
        try requireAttribute(key)
        try context.writer.update(objectID, [key: value])
        try context.didChange(objectID)
    }

    /// The destination of the to-one relationship `key`.
    ///
    /// - Parameter key: A to-one relationship of the object's entity.
    /// - Returns: The destination, or nil when none is set.
    /// - Throws: A ``MigrationError`` when the entity has no such relationship.
    public func object(forKey key: String) throws -> ManagedObject? {
        try objects(forKey: key).first
    }

    /// The destinations of the relationship `key`: in order for an ordered relationship, by `Z_PK` otherwise.
    ///
    /// - Parameter key: A relationship of the object's entity.
    /// - Returns: The destinations (at most one for a to-one).
    /// - Throws: A ``MigrationError`` when the entity has no such relationship.
    public func objects(forKey key: String) throws -> [ManagedObject] {
        _ = try relationship(key)
        return try context.reader.destinations(of: objectID, key).map { id in
            ManagedObject(id: id, entity: context.layout.numbering.name(of: id.entityNumber) ?? "", context: context)
        }
    }

    /// Sets the to-one relationship `key` to `object` (nil to clear it); its inverse follows, as
    /// Core Data keeps both sides of a relationship in step.
    ///
    /// - Parameters:
    ///   - object: The new destination, or nil.
    ///   - key: A to-one relationship of the object's entity.
    /// - Throws: A ``MigrationError`` when the entity has no such relationship or `object` is of another entity.
    public func setObject(_ object: ManagedObject?, forKey key: String) throws {
        try setObjects(object.map { [$0] } ?? [], forKey: key)
    }

    /// Sets the relationship `key` to exactly `objects` (in order, for an ordered relationship).
    ///
    /// - Parameters:
    ///   - objects: The new destinations (at most one for a to-one).
    ///   - key: A relationship of the object's entity.
    /// - Throws: A ``MigrationError`` when the entity has no such relationship or a destination is of another entity.
    public func setObjects(_ objects: [ManagedObject], forKey key: String) throws {
        let relationship = try relationship(key)
        // The objects that leave or join the relationship change too (their inverse does).
        let before = try context.reader.destinations(of: objectID, key)
        try context.writer.relate(objectID, relationship.name, to: objects.map(\.objectID))
        try context.didChange(objectID)
        for id in Set(before).symmetricDifference(objects.map(\.objectID)) { try context.didChange(id) }
    }

    /// Adds `objects` to the to-many relationship `key`, keeping those it has, as Core Data's
    /// `mutableSetValue(forKey:).addObjects(_:)` does: the work grows with the objects added, not
    /// with the relationship (merging duplicates stays linear in the rows, where setting the
    /// whole relationship each time rewrote every member again). Objects already in it stay where
    /// they are; one that another object had through a to-one inverse leaves that one.
    ///
    /// - Parameters:
    ///   - objects: The destinations to add.
    ///   - key: A to-many relationship of the object's entity.
    /// - Throws: A ``MigrationError`` when the entity has no such to-many relationship or a
    ///   destination is of another entity.
    public func addObjects(_ objects: [ManagedObject], forKey key: String) throws {
        let relationship = try relationship(key)
        guard relationship.isToMany else {
            throw MigrationError(
                .validation, "\(entity).\(key) is to-one in \(context.version)", fix: "use setObject(_:forKey:)")
        }
        var added: [ObjectID] = [], former: [ObjectID] = []
        if let inverse = relationship.inverseName,
            case .relationship(let back, _)? = context.layout.property(inverse, of: relationship.destinationEntityName),
            !back.isToMany
        {
            // A to-one inverse tells each object's owner: the members are known one by one.
            for object in objects {
                let owner = try context.reader.destinations(of: object.objectID, inverse)
                if owner != [objectID] { added.append(object.objectID); former += owner }
            }
        } else {
            let present = Set(try context.reader.destinations(of: objectID, key))
            added = objects.map(\.objectID).filter { !present.contains($0) }
        }
        guard !added.isEmpty else { return }
        try context.writer.add(objectID, relationship.name, added)
        try context.didChange(objectID)
        for id in Set(added + former) { try context.didChange(id) }
    }

    private func requireAttribute(_ key: String) throws {
        guard case .attribute? = context.layout.property(key, of: entity) else { throw unknownKey(key, "attribute") }
    }

    private func relationship(_ key: String) throws -> RelationshipDescription {
        guard case .relationship(let relationship, _)? = context.layout.property(key, of: entity) else {
            throw unknownKey(key, "relationship")
        }
        return relationship
    }

    private func unknownKey(_ key: String, _ kind: String) -> MigrationError {
        MigrationError(
            .validation, "\(entity) has no \(kind) \(key) in \(context.version)",
            fix: "use a \(kind) of \(entity) as \(context.version) defines it")
    }

    private func gone() -> MigrationError {
        MigrationError(
            .validation, "\(entity) object \(objectID) is no longer in the store (it was deleted)",
            fix: "fetch the objects again after deleting")
    }
}
