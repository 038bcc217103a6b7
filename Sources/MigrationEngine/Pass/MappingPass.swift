import Foundation
import SQLiteStore

/// One mapping model run through the three stages: create instances, recreate relationships,
/// validate — each entity mapping in order, each chunk its own transaction, a cancellation and
/// progress point. The pass owns what only it needs (its progress, its chunks, the step's
/// deferred indexes and counts, step mode's pause) and drives the manager, the face policies
/// see, whose stores it reads and writes through.
final class MappingPass {
    /// The manager the pass's policies talk to.
    let manager: MigrationManager
    /// The step's progress, stage by stage.
    let progress: ProgressReporter
    /// Source rows per transaction.
    let chunkSize: Int
    /// Destination indexes held back during the bulk load, if the step deferred them.
    var deferredIndexes: DeferredIndexes?
    /// Rows per concrete source entity, when the step counted them already: the source is only
    /// read, so the counts hold for every pass, and recounting would read every table again.
    var sourceRowCounts: [String: Int]?
    /// Step mode's pause, from ``MigrationOptions/pauseAfterEntityMapping``.
    var pauseAfterEntityMapping: (@Sendable (StepReport) -> Void)?

    /// The stores, readers, writer and association table the manager works through.
    var stores: StepStores { manager.stores }
    /// What this pass sets up and changes as it runs: made new when the pass starts running
    /// (``run(step:)``) and handed to its manager; until then, the manager's (what `plan --sql`
    /// compiles against, with no pass running).
    private(set) var state: PassState
    private var mappingModel: MappingModel { manager.mappingModel }

    init(manager: MigrationManager, progress: ProgressReporter, chunkSize: Int) {
        (self.manager, self.progress, self.chunkSize) = (manager, progress, chunkSize)
        state = manager.passState
    }

    /// Source instances each entity mapping will visit (exact entity, no subentities).
    func sourceCounts() throws -> [Int] {
        try mappingModel.entityMappings.map { mapping in
            guard let entity = mapping.sourceEntity else { return 0 }
            if let known = sourceRowCounts?[entity] { return known }
            return try stores.sourceReader.count(of: entity, includingSubentities: false)
        }
    }

    /// Source instances handed from the reading thread to stage 1 at a time.
    static let prefetchBatch = 1_000

    /// Runs the current mapping model's three stages.
    func run(step: Int) throws {
        let mappings = mappingModel.entityMappings
        let counts = try sourceCounts()
        try stores.associations.reset()
        state = PassState(stores: stores)
        manager.passState = state
        let policies = try manager.resolvePolicies()
        for (mapping, policy) in zip(mappings, policies) {
            try manager.transaction { try policy.begin(mapping, manager: manager) }
        }
        for (index, (mapping, policy)) in zip(mappings, policies).enumerated() {
            try createInstances(mapping, index: index, policy: policy, sourceCount: counts[index], step: step)
        }
        for (index, (mapping, policy)) in zip(mappings, policies).enumerated() {
            try createRelationships(mapping, index: index, policy: policy, sourceCount: counts[index], step: step)
        }
        try validate(policies, step: step)
    }

    // MARK: Stage 1

    /// Stage 1 for one entity mapping: its instances created, set-based or row by row.
    private func createInstances(
        _ mapping: EntityMapping, index: Int, policy: EntityMigrationPolicy, sourceCount: Int, step: Int
    ) throws {
        let mappings = mappingModel.entityMappings
        progress.begin(
            stage: .createInstances, pass: mappingModel.name, step: step, mapping: mapping.name,
            index: index + 1, count: mappings.count, rowsTotal: sourceCount)
        try manager.checkCancelled()
        // Mappings Core Data's defaults cover, whose expressions all compile, move set-based
        // (planned now: what earlier mappings did decides which to-ones fold into the insert).
        if let fast = manager.useSetBasedSQL ? SetBasedInstances(pass: self, mapping: mapping, index: index) : nil {
            try moveSetBased(fast, index: index, sourceCount: sourceCount)
        } else if let entity = mapping.sourceEntity {
            try visitRowByRow(mapping, entity: entity, index: index, policy: policy)
        }
        if sourceCount == 0 { progress.advance(units: 1) }
        try manager.transaction {
            try policy.endInstanceCreation(for: mapping, manager: manager)
            try state.writePendingInsert()
            try state.activeFold?.finish(stores.writer)
        }
        state.activeFold = nil
        try pause(
            after: mapping, index: index, stage: .createInstances,
            next: index + 1 < mappings.count ? mappings[index + 1].name : mappings.first?.name)
    }

    /// A set-based mapping's chunks, each its own transaction. Without a filter every source
    /// instance of the entity is moved: a chunk that skipped rows is an error, never a store
    /// with fewer rows called migrated.
    private func moveSetBased(_ fast: SetBasedInstances, index: Int, sourceCount: Int) throws {
        if let identity = try fast.keyIdentity() { stores.associations.markIdentity(mapping: index, identity) }
        // From the lowest key a store can hold: Core Data's keys start at 1, a damaged store's need not.
        var from = Int64.min, total = 0
        while true {
            try manager.checkCancelled()
            var moved = (rows: 0, last: from)
            try manager.transaction { moved = try fast.moveChunk(from: from, limit: chunkSize) }
            progress.advance(units: moved.rows, rows: moved.rows)
            total += moved.rows
            if moved.rows < chunkSize || moved.last == .max { break }
            from = moved.last + 1
        }
        guard fast.sql.filter != nil || total == sourceCount else {
            // The count is the whole table where it holds one entity: rows with another Z_ENT differ.
            throw MigrationError(
                .verification,
                """
                \(fast.mapping.name): \(total) of the \(sourceCount) rows of \(fast.sql.sourceTableName) were read \
                for the new store: the others' Z_ENT is not \(fast.mapping.sourceEntity ?? "the entity")'s number \
                \(fast.sql.sourceNumber), so no entity owns them
                """,
                fix:
                    """
                    the source is untouched; see them with SELECT Z_ENT, count(*) FROM \(fast.sql.sourceTableName) \
                    GROUP BY Z_ENT, and correct or delete those rows
                    """
            )
        }
    }

    /// A row-by-row mapping: every source instance through the filter and the policy, a chunk
    /// per transaction. The next instances are read and decoded on the other core while the
    /// policy runs, in batches small enough that memory stays flat whatever the chunk size.
    private func visitRowByRow(_ mapping: EntityMapping, entity: String, index: Int, policy: EntityMigrationPolicy)
        throws
    {
        state.activeFold = FoldedToOnes.plan(self, mapping: mapping, index: index, policy: policy)
        state.foldedToOnes[index] = state.activeFold
        let filter = mapping.filter
        let creates = mapping.kind != .remove && (mapping.destinationEntity != nil || mapping.policyName != nil)
        let prefetch = ObjectPrefetch(
            store: stores.sourceStore, layout: stores.sourceLayout, entity: entity, includingSubentities: false,
            batchSize: min(chunkSize, Self.prefetchBatch))
        defer { prefetch.stop(); state.endReadAhead() }
        state.beginReadAhead(prefetch)
        var more = true
        while more {
            try manager.checkCancelled()
            var seen = 0
            try manager.transaction {
                while seen < chunkSize {
                    guard let batch = try prefetch.next() else { more = false; break }
                    seen += batch.objects.count
                    state.readAhead(batch.related)
                    for object in batch.objects {
                        state.remember(sourceObject: object)  // the policy and expressions read it again
                        if let filter, try !matches(filter, source: object.id, mapping: mapping) { continue }
                        if creates {
                            try policy.createDestinationInstances(forSource: object.id, in: mapping, manager: manager)
                            try state.queuePendingInsert()
                        }
                    }
                    prefetch.recycle(consume batch)  // freed by the reading thread, which made it
                }
                try state.writePendingInsert()  // the chunk's queued rows, before it commits
            }
            progress.advance(units: seen, rows: seen)
        }
        state.remember(sourceObject: nil)
    }

    // MARK: Stage 2

    /// Stage 2 for one entity mapping: compiler-style relationship mappings set-based, the rest
    /// (and a custom policy's) row by row.
    private func createRelationships(
        _ mapping: EntityMapping, index: Int, policy: EntityMigrationPolicy, sourceCount: Int, step: Int
    ) throws {
        let mappings = mappingModel.entityMappings
        progress.begin(
            stage: .createRelationships, pass: mappingModel.name, step: step, mapping: mapping.name,
            index: index + 1, count: mappings.count, rowsTotal: try stores.associations.count(mapping: index))
        try manager.checkCancelled()
        let setBased = manager.useSetBasedSQL ? SetBasedRelationships(pass: self) : nil
        let handled = setBased?.handled(mapping, policy: policy) ?? []
        if let setBased, !handled.isEmpty {
            try manager.transaction { try setBased.run(mapping, index: index, names: handled) }
        }
        let rowByRow =
            !policy.usesDefaultRelationships
            || mapping.relationshipMappings.contains { $0.expression != nil && !handled.contains($0.name) }
        let reported =
            rowByRow
            ? try relateRowByRow(mapping, index: index, policy: policy, skipping: handled, sourceCount: sourceCount) : 0
        progress.advance(units: max(sourceCount, 1) - reported, rows: max(sourceCount - reported, 0))
        try manager.transaction { try policy.endRelationshipCreation(for: mapping, manager: manager) }
        try pause(
            after: mapping, index: index, stage: .createRelationships,
            next: index + 1 < mappings.count ? mappings[index + 1].name : nil)
    }

    /// Every pair of the mapping through the policy's (or Core Data's default) relationship
    /// work, a page per transaction; returns the progress units reported.
    private func relateRowByRow(
        _ mapping: EntityMapping, index: Int, policy: EntityMigrationPolicy, skipping handled: Set<String>,
        sourceCount: Int
    ) throws -> Int {
        // Row-by-row relationship work searches by foreign keys: it needs the indexes.
        try buildDeferredIndexes(thenResume: (mapping.name, index, mappingModel.entityMappings.count))
        var after: Int64 = 0
        var reported = 0
        while true {
            try manager.checkCancelled()
            let page = try stores.associations.page(mapping: index, after: after, limit: chunkSize)
            try manager.transaction {
                for pair in page {
                    if policy.usesDefaultRelationships {
                        try manager.createDefaultRelationships(
                            forDestination: pair.destination, in: mapping, skipping: handled)
                    } else {
                        try policy.createRelationships(forDestination: pair.destination, in: mapping, manager: manager)
                        try state.writePendingInsert()
                    }
                }
            }
            after = page.last?.rowid ?? after
            let units = min(page.count, max(sourceCount - reported, 0))
            reported += units
            progress.advance(units: units, rows: page.count)
            if page.count < chunkSize { return reported }
        }
    }

    // MARK: Stage 3

    /// Stage 3: the destination validated, then each policy's own validation and end.
    private func validate(_ policies: [EntityMigrationPolicy], step: Int) throws {
        let mappings = mappingModel.entityMappings
        try buildDeferredIndexes(thenResume: nil)
        let created = stores.writer.insertedCounts
        progress.begin(
            stage: .validate, pass: mappingModel.name, step: step, mapping: nil, index: 0, count: mappings.count,
            rowsTotal: created.values.reduce(0, +))
        var checking = manager.destinationModel.entities.makeIterator()
        try ModelRuleCheck(manager: manager).validate {
            let rows = checking.next().map { created[$0.name, default: 0] } ?? 0
            progress.advance(units: rows, rows: rows)
        }
        for (mapping, policy) in zip(mappings, policies) {
            try manager.transaction {
                try policy.performCustomValidation(for: mapping, manager: manager)
                try policy.end(mapping, manager: manager)
            }
        }
        // The policies' look-up indexes go before the store is verified against a new one's schema.
        try manager.dropLookups()
    }

    /// Builds the destination's deferred indexes (once per step) as a stage of its own; a
    /// relationship stage that needs them mid-way then carries on as `resume` says.
    private func buildDeferredIndexes(thenResume resume: (mapping: String, index: Int, count: Int)?) throws {
        let indexes = StoreSchema(layout: stores.destinationLayout).indexes
        guard let deferredIndexes = deferredIndexes, let first = indexes.first,
            try stores.connection.integer(
                SQLStatement(
                    "SELECT count(*) FROM main.sqlite_master WHERE type = 'index' AND name = ?", [.text(first.name)]))
                == 0
        else {
            return
        }
        progress.begin(stage: .indexes, mapping: nil, index: 0, count: 0, rowsTotal: indexes.count, unit: .indexes)
        try deferredIndexes.create(on: stores.connection) { progress.advance(units: 1) }
        if let resume {
            progress.begin(
                stage: .createRelationships, mapping: resume.mapping, index: resume.index + 1, count: resume.count,
                rowsTotal: try stores.associations.count(mapping: resume.index))
        }
    }

    /// Step mode: report what `mapping` did, wait for the watcher, and stop if it cancelled.
    private func pause(after mapping: EntityMapping, index: Int, stage: MigrationProgress.Stage, next: String?) throws {
        guard let pause = pauseAfterEntityMapping else { return }
        pause(try manager.stepReport(mapping, index: index, stage: stage, next: next))
        try manager.checkCancelled()
    }

    private func matches(_ filter: Predicate, source: ObjectID, mapping: EntityMapping) throws -> Bool {
        let scope = MigrationScope(manager: manager, source: source, destination: nil, mapping: mapping)
        do {
            return try PredicateEvaluator(
                evaluator: ExpressionEvaluator(
                    context: scope, evaluatedObject: .object(ObjectRef(side: .source, id: source)))
            )
            .matches(filter)
        } catch let error as EvaluationError {
            throw MigrationError(
                .evaluation, "\(mapping.name) filter \(filter): \(error)", fix: "correct the filter predicate")
        }
    }
}
