import ObjectModel
import SQLiteStore

/// What changes while one mapping pass runs, in one value the pass owns (``MappingPass``
/// makes it and hands it to its manager, whose calls from policies read and change it): the
/// pass's resolved policies and attribute assignments, its folded to-ones and the one running,
/// the insert held back, the objects read last, and what is read ahead. ``StepStores`` is what
/// stays fixed for the step.
final class PassState {
    /// The step's stores, readers and writer.
    let stores: StepStores
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

    /// A pass's state before it has set anything up, on `stores`.
    init(stores: StepStores) { self.stores = stores }

    // MARK: The insert held back

    /// Writes the instance inserted last, if its row is still held back, and the rows queued
    /// before it: before anything else reads or writes the destination.
    func writePendingInsert() throws {
        guard let pending = pendingInsert else { return try stores.writer.writeQueuedInserts() }
        pendingInsert = nil
        try stores.writer.run(pending)  // the queued rows first
    }

    /// Writes what is held back or queued for `entity`'s table: what a look-up in that table
    /// must see first. Rows of other tables stay queued.
    func writePendingInsert(before entity: String) throws {
        guard let table = stores.destinationLayout.table(for: entity)?.name else { return }
        if pendingInsert?.table == table { return try writePendingInsert() }
        try stores.writer.writeQueuedInserts(into: table)
    }

    /// Queues the instance inserted last, when nothing reads it and nothing but the writer writes
    /// to it next (a policy call returned, or it inserts again): the writer writes it with others
    /// of its table, and before anything else it does (QueuedInserts.swift).
    func queuePendingInsert() throws {
        guard let pending = pendingInsert else { return }
        pendingInsert = nil
        try stores.writer.queue(pending)
    }

    // MARK: The object cache

    /// `object` as stored, from the cache when it was read last; a destination object's
    /// held-back row is written first.
    func cachedObject(_ object: ObjectRef) throws -> StoredObject? {
        let isSource = object.side == .source
        if !isSource { try writePendingInsert() }
        if let cached = isSource ? lastSource : lastDestination, cached.id == object.id { return cached }
        if isSource, let member = servedMember(object.id) { return member }
        let fetched = try (isSource ? stores.sourceReader : stores.destinationReader).object(object.id)
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
