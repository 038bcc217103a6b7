import Foundation
import ObjectModel
import SQLiteStore

/// What a manager reads and writes through, kept apart from what ``MigrationManager`` offers
/// policies: the connection with both stores, their readers and writer, the association table
/// and the look-up indexes (for the whole step), and what each pass sets up for the manager
/// (resolved policies, attribute assignments, folded to-ones, the insert held back, the object
/// cache). The manager holds one; a policy never sees it; the running ``MappingPass`` reaches it
/// through its manager.
final class StepStores {
    /// The destination store's connection, with the source attached as `src` and the work
    /// database as `work`: everything the pass reads and writes goes through it.
    let connection: StoreConnection
    /// The source store, for reading a row-by-row mapping's instances ahead on a second connection.
    let sourceStore: PersistentStore
    /// The store's UUID (`Z_METADATA.Z_UUID`), which the new store keeps: what an object ID's URI
    /// names (`x-coredata://<UUID>/<Entity>/p<Z_PK>`), read once.
    lazy var storeUUID: String? = try? sourceStore.metadata().uuid
    let sourceLayout: StoreLayout
    let destinationLayout: StoreLayout
    let sourceReader: ObjectReader
    let destinationReader: ObjectReader
    let writer: ObjectWriter
    let associations: AssociationTable
    /// Indexes (on the destination) and indexed copies (of the source, in the work database)
    /// that keep every look-up a policy makes O(log n); dropped at the end of each pass.
    let sourceLookups: LookupIndexes, destinationLookups: LookupIndexes
    let cancellation: CancellationToken

    /// The running pass's policies, by entity mapping name.
    var policiesByMapping: [String: EntityMigrationPolicy] = [:]
    /// Each entity mapping's attribute assignments, by mapping name, for the running pass.
    var attributeAssignmentsByMapping: [String: (entity: String, assignments: AttributeAssignments)] = [:]
    /// The pass's row-by-row mappings whose to-ones go into their inserts, by mapping index.
    var foldedToOnes: [Int: FoldedToOnes] = [:]
    /// The one whose stage 1 is running.
    var activeFold: FoldedToOnes?
    /// The instance a policy inserted last, while its row is held back (``PendingInsert``).
    var pendingInsert: PendingInsert?
    /// The object read last from each store: expressions read several keys of the same object.
    private var lastSource: StoredObject?, lastDestination: StoredObject?
    /// The source instance stage 1 is visiting, row by row.
    private(set) var visitingSource: StoredObject?

    init(
        connection: StoreConnection, sourceStore: PersistentStore, sourceLayout: StoreLayout,
        destinationLayout: StoreLayout, destinationPath: String,
        cancellation: CancellationToken
    ) {
        self.connection = connection
        self.sourceStore = sourceStore
        self.sourceLayout = sourceLayout
        self.destinationLayout = destinationLayout
        // The source is attached read-only: what it has no index for is copied into `work`, indexed.
        sourceLookups = LookupIndexes(connection: connection, schema: "src", copiesInto: AssociationTable.schema)
        destinationLookups = LookupIndexes(connection: connection, schema: "main")
        sourceReader = ObjectReader(
            connection: connection, layout: sourceLayout, schema: "src", path: sourceStore.path, lookups: sourceLookups)
        destinationReader = ObjectReader(
            connection: connection, layout: destinationLayout, schema: "main", path: destinationPath,
            lookups: destinationLookups)
        writer = ObjectWriter(connection: connection, layout: destinationLayout, schema: "main", path: destinationPath)
        writer.checksRequiredValues = false
        associations = AssociationTable(connection: connection, sourceLayout: sourceLayout)
        self.cancellation = cancellation
    }

    // MARK: The insert held back

    /// Writes the instance inserted last, if its row is still held back, and the rows queued
    /// before it: before anything else reads or writes the destination.
    func writePendingInsert() throws {
        guard let pending = pendingInsert else { return try writer.writeQueuedInserts() }
        pendingInsert = nil
        try writer.run(pending)  // the queued rows first
    }

    /// Writes what is held back or queued for `entity`'s table: what a look-up in that table
    /// must see first. Rows of other tables stay queued.
    func writePendingInsert(before entity: String) throws {
        guard let table = destinationLayout.table(for: entity)?.name else { return }
        if pendingInsert?.table == table { return try writePendingInsert() }
        try writer.writeQueuedInserts(into: table)
    }

    /// Queues the instance inserted last, when nothing reads it and nothing but the writer writes
    /// to it next (a policy call returned, or it inserts again): the writer writes it with others
    /// of its table, and before anything else it does (QueuedInserts.swift).
    func queuePendingInsert() throws {
        guard let pending = pendingInsert else { return }
        pendingInsert = nil
        try writer.queue(pending)
    }

    // MARK: The object cache

    /// `object` as stored, from the cache when it was read last; a destination object's
    /// held-back row is written first.
    func cachedObject(_ object: ObjectRef) throws -> StoredObject? {
        let isSource = object.side == .source
        if !isSource { try writePendingInsert() }
        if let cached = isSource ? lastSource : lastDestination, cached.id == object.id { return cached }
        if isSource, let member = servedMember(object.id) { return member }
        let fetched = try (isSource ? sourceReader : destinationReader).object(object.id)
        if isSource { lastSource = fetched } else { lastDestination = fetched }
        return fetched
    }

    /// Caches the source object stage 1 is visiting, so reading it again costs no query.
    func remember(sourceObject object: StoredObject?) {
        lastSource = object
        visitingSource = object
    }

    /// Forgets cached objects (after writes to the destination).
    func forgetCachedObjects() { lastDestination = nil }

    // MARK: Reading ahead

    /// The prefetch of the instances stage 1 is visiting, and what it read ahead for the batch
    /// being visited (``ObjectPrefetch/readAhead(_:)``).
    private var prefetch: ObjectPrefetch?
    private var relatedAhead: [String: RelatedObjects] = [:]
    /// Relationships the prefetch was asked to read ahead.
    private var askedAhead: Set<String> = []
    /// The members served last from what was read ahead: a policy reads them next.
    private var servedMembers: [StoredObject] = [], servedIndex: [ObjectID: Int]?

    func beginReadAhead(_ prefetch: ObjectPrefetch) {
        self.prefetch = prefetch
        askedAhead = []
    }

    /// What the prefetch read ahead for the batch stage 1 visits next.
    func readAhead(_ related: [String: RelatedObjects]) { relatedAhead = related }

    func endReadAhead() {
        prefetch = nil
        relatedAhead = [:]
        servedMembers = []
        servedIndex = nil
    }

    /// The source members of to-many `name` of `owner`, when they were read ahead. A policy
    /// walking the relationship from the instance it visits has the prefetch read it ahead from
    /// then on: one statement per batch on the other core, instead of a walk and a read of each
    /// member here.
    func readAheadMembers(of owner: ObjectID, _ name: String) -> [StoredObject]? {
        if let related = relatedAhead[name], related.covers(owner) {
            servedMembers = related.members(of: owner)
            servedIndex = nil
            return servedMembers
        }
        if let prefetch, owner == visitingSource?.id, askedAhead.insert(name).inserted { prefetch.readAhead(name) }
        return nil
    }

    /// The member served last with ID `id`: a short list is searched, a long one indexed once.
    private func servedMember(_ id: ObjectID) -> StoredObject? {
        guard !servedMembers.isEmpty else { return nil }
        if servedMembers.count <= 16 { return servedMembers.first { $0.id == id } }
        if servedIndex == nil {
            servedIndex = Dictionary(
                servedMembers.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return servedIndex?[id].map { servedMembers[$0] }
    }
}
