import Foundation
internal import GRDB

/// Reads the instances of one entity in `Z_PK` order on a thread and connection of its own, a
/// batch ahead of whoever takes them: the caller works on one batch while the next is read and
/// decoded on the other core.
///
/// For a store nothing else writes while it is read (a migration's source, locked for the run).
/// At most three batches are in memory besides the one being worked on (one read, one ready, one
/// handed back to be freed), however large the table. Call ``stop()`` when done, early or not: the
/// reader holds a read transaction until then.
///
/// Asked to (``readAhead(_:)``), it also reads, for each batch, the objects its instances reach
/// through a to-many relationship (``RelatedObjects``).
package final class ObjectPrefetch: @unchecked Sendable {
    /// A batch of instances, and what was read ahead for them, by relationship name.
    package struct Batch {
        package var objects: [StoredObject]
        package var related: [String: RelatedObjects] = [:]
    }

    private let store: PersistentStore
    private let layout: StoreLayout
    private let entity: String
    private let includingSubentities: Bool
    private let batchSize: Int
    /// Guards everything below; the reader and the caller wait on it for each other.
    private let condition = NSCondition()
    private var ready: Batch?
    /// The relationships to read ahead (``readAhead(_:)``).
    private var wanted: Set<String> = []
    /// `finished`: the reader has let go of the store, after the last batch or an error.
    private var finished = false, stopping = false
    private var failure: Error?
    /// Batches the caller is done with, for the reader to free (``recycle(_:)``).
    private var spent: [Batch] = []

    /// Starts reading `entity` (and its subentities unless told not to) from `store`, whose
    /// tables `layout` describes, `batchSize` instances at a time.
    package init(
        store: PersistentStore, layout: StoreLayout, entity: String, includingSubentities: Bool = true, batchSize: Int
    ) {
        self.store = store
        self.layout = layout
        self.entity = entity
        self.includingSubentities = includingSubentities
        self.batchSize = max(batchSize, 1)
        let thread = Thread { [self] in readAll() }
        thread.name = "chrysalis.prefetch"
        thread.start()
    }

    /// The next batch, in `Z_PK` order; nil after the last. Rethrows what stopped the reader.
    package func next() throws -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        while ready == nil && !finished { condition.wait() }
        if let batch = ready {
            ready = nil
            condition.broadcast()
            return batch
        }
        if let failure { throw failure }
        return nil
    }

    /// Hands back a batch the caller is done with, for the reader's thread to free. Memory is freed
    /// fastest by the thread that allocated it (glibc's per-thread caches): freed on the caller's
    /// thread, a policy's stage spent a share of its time in `free` and its locks, on the busier
    /// core (`perf` on `chrysalis-bench --scenario custom-policy` shows where a policy step's time
    /// goes). Pass the last reference (`recycle(consume batch)`), or the caller frees it.
    package func recycle(_ batch: consuming Batch) {
        condition.lock()
        spent.append(batch)
        condition.unlock()
    }

    /// Reads the members of to-many `relationship` with each batch from the next one it starts
    /// on; a batch may lack them (read before they were asked for, or too many), and then the
    /// caller reads them itself.
    package func readAhead(_ relationship: String) {
        condition.lock()
        wanted.insert(relationship)
        condition.unlock()
    }

    /// Stops the reader and waits until it has let go of the store. Safe to call more than once.
    package func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func readAll() {
        do {
            // One read transaction and one cursor for the whole table: nothing writes it meanwhile.
            try store.read { db in
                let reader = ObjectReader(db: db, layout: layout, path: store.path)
                let number = includingSubentities ? nil : layout.numbering.number(of: entity)
                var batch: [StoredObject] = []
                batch.reserveCapacity(batchSize)
                /// The batch with what is wanted read ahead for it, handed over.
                func handOver() throws {
                    var ready = Batch(objects: batch)
                    if let number, let first = batch.first?.id.primaryKey, let last = batch.last?.id.primaryKey {
                        for name in wantedNow() {
                            // Left out on an error: the caller's own read then reports it, as without read-ahead.
                            ready.related[name] = try? reader.relatedObjects(
                                of: number, keys: first...last, through: name,
                                limit: batchSize * Self.membersPerInstance)
                        }
                    }
                    guard hand(over: ready) else { throw Stopped() }
                }
                try reader.forEachObject(of: entity, includingSubentities: includingSubentities) { object in
                    batch.append(object)
                    if batch.count == batchSize {
                        freeSpent()
                        try handOver()
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                if !batch.isEmpty { try handOver() }
            }
            finish(nil)
        } catch is Stopped {
            finish(nil)
        } catch {
            finish(error)
        }
    }

    /// Members read ahead per instance of a batch, at most, on average: owners past that are
    /// left to the caller, so the three batches in memory stay small however wide the rows or
    /// large the relationship (8,000 members a batch of 1,000).
    static let membersPerInstance = 8

    private func wantedNow() -> Set<String> {
        condition.lock()
        defer { condition.unlock() }
        return wanted
    }

    /// Frees, on this thread and outside the lock, the batches the caller handed back.
    private func freeSpent() {
        condition.lock()
        let done = spent
        spent = []
        condition.unlock()
        _ = consume done
    }

    /// Waits until the last batch was taken, then offers `batch`; false once the caller stopped.
    private func hand(over batch: Batch) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while ready != nil && !stopping { condition.wait() }
        guard !stopping else { return false }
        ready = batch
        condition.broadcast()
        return true
    }

    private func finish(_ error: Error?) {
        condition.lock()
        failure = error
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private struct Stopped: Error {}
}
