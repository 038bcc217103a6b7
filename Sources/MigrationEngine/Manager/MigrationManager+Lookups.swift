import SQLiteStore

/// Every look-up a policy can make through the manager, each served by an index: O(log n) to
/// find, O(1) per object found, however large the stores.
///
/// Policies run once per source row, and what they naturally write — a fetch by attribute in the
/// destination (Core Data: a fetch request in the destination context), a walk along a source
/// relationship — would read a whole table per row without an index: n² work for n rows. So the
/// first look-up on a column that no index leads with makes one (``LookupIndexes``): an index on
/// the destination's table, or an indexed copy of the source's column in the work database (the
/// source is never written). The policy author does nothing; every such index is dropped at the
/// end of the pass, so the migrated store has exactly the schema of a new one.
extension MigrationManager {
    // MARK: The source

    /// The source instances related to `id` through `relationship`, in order for an ordered
    /// relationship and by key otherwise: O(log n + k) for k of them. A to-many walked from the
    /// instance stage 1 is visiting is read ahead for the instances after it, on the prefetch's
    /// thread, with the members themselves: walking it, then reading those members with
    /// ``sourceObject(_:)``, then costs no query.
    ///
    /// - Parameters:
    ///   - id: A source instance.
    ///   - relationship: One of its relationships, to-one or to-many.
    /// - Returns: The related source instances; empty when there are none.
    /// - Throws: A `StoreError` when the instance has no such relationship, or the source cannot be
    ///   read.
    public func sourceDestinations(of id: ObjectID, _ relationship: String) throws -> [ObjectID] {
        if let members = passState.readAheadMembers(of: id, relationship) { return members.map(\.id) }
        return try stores.sourceReader.destinations(of: id, relationship)
    }

    /// Source instances of `entity` (and its subentities) whose attribute `key` equals `value`,
    /// by key (Core Data: a fetch in the source context): O(log n + k) for k matches. When only
    /// one is wanted, ``firstSourceObjectID(_:where:equals:)`` and ``lastSourceObjectID(_:where:equals:)``
    /// cost O(log n) however many match.
    ///
    /// - Parameters:
    ///   - entity: A source entity.
    ///   - key: One of its stored attributes.
    ///   - value: The value to match.
    /// - Returns: The matching instances, by key; empty when none matches.
    /// - Throws: A `StoreError` when the entity or attribute does not exist or cannot hold `value`,
    ///   or the source cannot be read.
    public func sourceObjectIDs(_ entity: String, where key: String, equals value: StoreValue) throws -> [ObjectID] {
        try stores.sourceReader.matchingObjectIDs(of: entity, where: key, equals: value)
    }

    /// The source instance of `entity` with the lowest key whose `key` equals `value`: O(log n).
    ///
    /// - Parameters:
    ///   - entity: A source entity.
    ///   - key: One of its stored attributes.
    ///   - value: The value to match.
    /// - Returns: The instance, or `nil` when none matches.
    /// - Throws: A `StoreError` when the entity or attribute does not exist or cannot hold `value`,
    ///   or the source cannot be read.
    public func firstSourceObjectID(_ entity: String, where key: String, equals value: StoreValue) throws -> ObjectID? {
        try stores.sourceReader.matchingObjectIDs(of: entity, where: key, equals: value, from: .first, limit: 1).first
    }

    /// The source instance of `entity` with the highest key whose `key` equals `value`: O(log n).
    ///
    /// - Parameters:
    ///   - entity: A source entity.
    ///   - key: One of its stored attributes.
    ///   - value: The value to match.
    /// - Returns: The instance, or `nil` when none matches.
    /// - Throws: A `StoreError` when the entity or attribute does not exist or cannot hold `value`,
    ///   or the source cannot be read.
    public func lastSourceObjectID(_ entity: String, where key: String, equals value: StoreValue) throws -> ObjectID? {
        try stores.sourceReader.matchingObjectIDs(of: entity, where: key, equals: value, from: .last, limit: 1).first
    }

    // MARK: The destination

    /// Destination instances of `entity` (and its subentities) whose attribute `key` equals
    /// `value`, as written so far, by key (Core Data: a fetch in the destination context):
    /// O(log n + k) for k matches. Every match is read, so on a value many rows share (an empty
    /// one, say) ask ``firstDestinationObjectID(_:where:equals:)`` or
    /// ``lastDestinationObjectID(_:where:equals:)`` for one: O(log n) however many match.
    ///
    /// - Parameters:
    ///   - entity: A destination entity.
    ///   - key: One of its stored attributes.
    ///   - value: The value to match.
    /// - Returns: The matching instances, by key; empty when none matches.
    /// - Throws: A `StoreError` when the entity or attribute does not exist or cannot hold `value`,
    ///   or the destination cannot be read or written.
    public func destinationObjectIDs(_ entity: String, where key: String, equals value: StoreValue) throws -> [ObjectID]
    {
        try passState.writePendingInsert(before: entity)
        return try stores.destinationReader.matchingObjectIDs(of: entity, where: key, equals: value)
    }

    /// The destination instance of `entity` with the lowest key whose `key` equals `value` (Core
    /// Data: a fetch with a limit of 1, sorted by creation): O(log n).
    ///
    /// - Parameters:
    ///   - entity: A destination entity.
    ///   - key: One of its stored attributes.
    ///   - value: The value to match.
    /// - Returns: The instance, or `nil` when none matches.
    /// - Throws: A `StoreError` when the entity or attribute does not exist or cannot hold `value`,
    ///   or the destination cannot be read or written.
    public func firstDestinationObjectID(_ entity: String, where key: String, equals value: StoreValue) throws
        -> ObjectID?
    {
        try passState.writePendingInsert(before: entity)
        return try stores.destinationReader.matchingObjectIDs(
            of: entity, where: key, equals: value, from: .first, limit: 1
        ).first
    }

    /// The destination instance of `entity` with the highest key (the one made last) whose `key`
    /// equals `value`: O(log n). What `destinationObjectIDs(…).last` finds, without reading the rest.
    ///
    /// - Parameters:
    ///   - entity: A destination entity.
    ///   - key: One of its stored attributes.
    ///   - value: The value to match.
    /// - Returns: The instance, or `nil` when none matches.
    /// - Throws: A `StoreError` when the entity or attribute does not exist or cannot hold `value`,
    ///   or the destination cannot be read or written.
    public func lastDestinationObjectID(_ entity: String, where key: String, equals value: StoreValue) throws
        -> ObjectID?
    {
        try passState.writePendingInsert(before: entity)
        return try stores.destinationReader.matchingObjectIDs(
            of: entity, where: key, equals: value, from: .last, limit: 1
        ).first
    }

    // MARK: Upkeep

    /// Setting or adding to a to-many finds its members by the column that points back at `id`:
    /// that column gets an index on first use, while the destination's own are held back.
    /// Adding to an unordered to-many looks nothing up (`adding`): only an ordered one counts its
    /// members for the next position.
    func prepareMemberLookups(of id: ObjectID, _ relationship: String, adding: Bool = false) throws {
        guard let entity = stores.destinationLayout.numbering.name(of: id.entityNumber) else { return }
        switch stores.destinationLayout.storage(entity: entity, relationship: relationship) {
        case let .inverseForeignKey(table, column, _, order)? where !adding || order != nil:
            try stores.destinationLookups.prepare(table: table, column: column)
        case let .joinTable(join, sourceColumn, _, order)? where !adding || order != nil:
            try stores.destinationLookups.prepare(table: join.name, column: sourceColumn)
        default: break
        }
    }

    /// Drops the pass's look-up indexes and copies: before validation and verification, which
    /// compare the destination's schema with a new store's.
    func dropLookups() throws {
        try stores.destinationLookups.dropAll()
        try stores.sourceLookups.dropAll()
    }
}
