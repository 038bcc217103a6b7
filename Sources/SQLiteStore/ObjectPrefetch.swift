import Foundation
import GRDB

/// Reads the instances of one entity in `Z_PK` order on a thread and connection of its own, a
/// chunk ahead of whoever takes them: the caller works on one chunk while the next is read and
/// decoded on the other core.
///
/// For a store nothing else writes while it is read (a migration's source, locked for the run).
/// At most two chunks are in memory besides the one being worked on, however large the table.
/// Call ``stop()`` when done, early or not: the reader holds a read transaction until then.
public final class ObjectPrefetch: @unchecked Sendable {
    private let store: PersistentStore
    private let layout: StoreLayout
    private let entity: String
    private let includingSubentities: Bool
    private let chunkSize: Int
    /// Guards everything below; the reader and the caller wait on it for each other.
    private let condition = NSCondition()
    private var ready: [StoredObject]?
    private var readerDone = false, stopping = false, exited = false
    private var failure: Error?

    /// Starts reading `entity` (and its subentities unless told not to) from `store`, whose
    /// tables `layout` describes, `chunkSize` instances at a time.
    public init(store: PersistentStore, layout: StoreLayout, entity: String, includingSubentities: Bool = true, chunkSize: Int) {
        self.store = store
        self.layout = layout
        self.entity = entity
        self.includingSubentities = includingSubentities
        self.chunkSize = max(chunkSize, 1)
        let thread = Thread { [self] in readAll() }
        thread.name = "chrysalis.prefetch"
        thread.start()
    }

    /// The next chunk, in `Z_PK` order; nil after the last. Rethrows what stopped the reader.
    public func next() throws -> [StoredObject]? {
        condition.lock()
        defer { condition.unlock() }
        while ready == nil && !readerDone { condition.wait() }
        if let chunk = ready {
            ready = nil
            condition.broadcast()
            return chunk
        }
        if let failure { throw failure }
        return nil
    }

    /// Stops the reader and waits until it has let go of the store. Safe to call more than once.
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }

    private func readAll() {
        do {
            // One read transaction and one cursor for the whole table: nothing writes it meanwhile.
            try store.read { db in
                let reader = ObjectReader(db: db, layout: layout, path: store.path)
                var chunk: [StoredObject] = []
                chunk.reserveCapacity(chunkSize)
                try reader.forEachObject(of: entity, includingSubentities: includingSubentities) { object in
                    chunk.append(object)
                    if chunk.count == chunkSize {
                        guard hand(over: chunk) else { throw Stopped() }
                        chunk.removeAll(keepingCapacity: true)
                    }
                }
                if !chunk.isEmpty { _ = hand(over: chunk) }
            }
            finish(nil)
        } catch is Stopped {
            finish(nil)
        } catch {
            finish(error)
        }
    }

    /// Waits until the last chunk was taken, then offers `chunk`; false once the caller stopped.
    private func hand(over chunk: [StoredObject]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while ready != nil && !stopping { condition.wait() }
        guard !stopping else { return false }
        ready = chunk
        condition.broadcast()
        return true
    }

    private func finish(_ error: Error?) {
        condition.lock()
        failure = error
        readerDone = true
        exited = true
        condition.broadcast()
        condition.unlock()
    }

    private struct Stopped: Error {}
}
