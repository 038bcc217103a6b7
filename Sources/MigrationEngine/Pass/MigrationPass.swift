import Foundation
import SQLiteStore

/// One mapping model run through the three stages: create instances, recreate relationships,
/// validate — each entity mapping in order, each chunk its own transaction, a cancellation and
/// progress point.
extension MigrationManager {
    /// Source instances each entity mapping will visit (exact entity, no subentities).
    func sourceCounts() throws -> [Int] {
        try mappingModel.entityMappings.map { mapping in
            guard let entity = mapping.sourceEntity else { return 0 }
            if let known = pass.sourceRowCounts?[entity] { return known }
            return try pass.sourceReader.count(of: entity, includingSubentities: false)
        }
    }

    /// Source instances handed from the reading thread to stage 1 at a time.
    static let prefetchBatch = 1_000

    /// Runs the current mapping model's three stages.
    func runPass(step: Int) throws {
        let mappings = mappingModel.entityMappings
        let counts = try sourceCounts()
        try pass.associations.reset()
        pass.foldedToOnes = [:]
        pass.attributeAssignmentsByMapping = [:]
        let policies = try resolvePolicies()
        for (mapping, policy) in zip(mappings, policies) { try transaction { try policy.begin(mapping, manager: self) } }
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
    private func createInstances(_ mapping: EntityMapping, index: Int, policy: EntityMigrationPolicy, sourceCount: Int, step: Int) throws {
        let mappings = mappingModel.entityMappings
        pass.progress.begin(stage: .createInstances, pass: mappingModel.name, step: step, mapping: mapping.name,
                       index: index + 1, count: mappings.count, rowsTotal: sourceCount)
        try checkCancelled()
        // Mappings Core Data's defaults cover, whose expressions all compile, move set-based
        // (planned now: what earlier mappings did decides which to-ones fold into the insert).
        if let fast = useSetBasedSQL ? SetBasedInstances(manager: self, mapping: mapping, index: index) : nil {
            try moveSetBased(fast, index: index, sourceCount: sourceCount)
        } else if let entity = mapping.sourceEntity {
            try visitRowByRow(mapping, entity: entity, index: index, policy: policy)
        }
        if sourceCount == 0 { pass.progress.advance(units: 1) }
        try transaction {
            try policy.endInstanceCreation(for: mapping, manager: self)
            try pass.writePendingInsert()
            try pass.activeFold?.finish(pass.writer)
        }
        pass.activeFold = nil
        try pause(after: mapping, index: index, stage: .createInstances,
                  next: index + 1 < mappings.count ? mappings[index + 1].name : mappings.first?.name)
    }

    /// A set-based mapping's chunks, each its own transaction. Without a filter every source
    /// instance of the entity is moved: a chunk that skipped rows is an error, never a store
    /// with fewer rows called migrated.
    private func moveSetBased(_ fast: SetBasedInstances, index: Int, sourceCount: Int) throws {
        if let identity = try fast.keyIdentity() { pass.associations.markIdentity(mapping: index, identity) }
        // From the lowest key a store can hold: Core Data's keys start at 1, a damaged store's need not.
        var from = Int64.min, total = 0
        while true {
            try checkCancelled()
            var moved = (rows: 0, last: from)
            try transaction { moved = try fast.moveChunk(from: from, limit: pass.chunkSize) }
            pass.progress.advance(units: moved.rows, rows: moved.rows)
            total += moved.rows
            if moved.rows < pass.chunkSize || moved.last == .max { break }
            from = moved.last + 1
        }
        guard fast.sql.filter != nil || total == sourceCount else {
            // The count is the whole table where it holds one entity: rows with another Z_ENT differ.
            throw MigrationError(.verification, "\(fast.mapping.name): \(total) of the \(sourceCount) rows of \(fast.sql.sourceTableName) were read for the new store: the others' Z_ENT is not \(fast.mapping.sourceEntity ?? "the entity")'s number \(fast.sql.sourceNumber), so no entity owns them",
                                 fix: "the source is untouched; see them with SELECT Z_ENT, count(*) FROM \(fast.sql.sourceTableName) GROUP BY Z_ENT, and correct or delete those rows")
        }
    }

    /// A row-by-row mapping: every source instance through the filter and the policy, a chunk
    /// per transaction. The next instances are read and decoded on the other core while the
    /// policy runs, in batches small enough that memory stays flat whatever the chunk size.
    private func visitRowByRow(_ mapping: EntityMapping, entity: String, index: Int, policy: EntityMigrationPolicy) throws {
        pass.activeFold = FoldedToOnes.plan(self, mapping: mapping, index: index, policy: policy)
        pass.foldedToOnes[index] = pass.activeFold
        let filter = mapping.filter
        let creates = mapping.kind != .remove && (mapping.destinationEntity != nil || mapping.policyName != nil)
        let prefetch = ObjectPrefetch(store: pass.sourceStore, layout: pass.sourceLayout, entity: entity, includingSubentities: false,
                                      batchSize: min(pass.chunkSize, Self.prefetchBatch))
        defer { prefetch.stop(); pass.endReadAhead() }
        pass.beginReadAhead(prefetch)
        var more = true
        while more {
            try checkCancelled()
            var seen = 0
            try transaction {
                while seen < pass.chunkSize {
                    guard let batch = try prefetch.next() else { more = false; break }
                    seen += batch.objects.count
                    pass.readAhead(batch.related)
                    for object in batch.objects {
                        pass.remember(sourceObject: object)  // the policy and expressions read it again
                        if let filter, try !matches(filter, source: object.id, mapping: mapping) { continue }
                        if creates {
                            try policy.createDestinationInstances(forSource: object.id, in: mapping, manager: self)
                            try pass.queuePendingInsert()
                        }
                    }
                    prefetch.recycle(consume batch)  // freed by the reading thread, which made it
                }
                try pass.writePendingInsert()  // the chunk's queued rows, before it commits
            }
            pass.progress.advance(units: seen, rows: seen)
        }
        pass.remember(sourceObject: nil)
    }

    // MARK: Stage 2

    /// Stage 2 for one entity mapping: compiler-style relationship mappings set-based, the rest
    /// (and a custom policy's) row by row.
    private func createRelationships(_ mapping: EntityMapping, index: Int, policy: EntityMigrationPolicy, sourceCount: Int, step: Int) throws {
        let mappings = mappingModel.entityMappings
        pass.progress.begin(stage: .createRelationships, pass: mappingModel.name, step: step, mapping: mapping.name,
                       index: index + 1, count: mappings.count, rowsTotal: try pass.associations.count(mapping: index))
        try checkCancelled()
        let setBased = useSetBasedSQL ? SetBasedRelationships(manager: self) : nil
        let handled = setBased?.handled(mapping, policy: policy) ?? []
        if let setBased, !handled.isEmpty { try transaction { try setBased.run(mapping, index: index, names: handled) } }
        let rowByRow = !policy.usesDefaultRelationships || mapping.relationshipMappings.contains { $0.expression != nil && !handled.contains($0.name) }
        let reported = rowByRow ? try relateRowByRow(mapping, index: index, policy: policy, skipping: handled, sourceCount: sourceCount) : 0
        pass.progress.advance(units: max(sourceCount, 1) - reported, rows: max(sourceCount - reported, 0))
        try transaction { try policy.endRelationshipCreation(for: mapping, manager: self) }
        try pause(after: mapping, index: index, stage: .createRelationships, next: index + 1 < mappings.count ? mappings[index + 1].name : nil)
    }

    /// Every pair of the mapping through the policy's (or Core Data's default) relationship
    /// work, a page per transaction; returns the progress units reported.
    private func relateRowByRow(_ mapping: EntityMapping, index: Int, policy: EntityMigrationPolicy, skipping handled: Set<String>,
                                sourceCount: Int) throws -> Int {
        // Row-by-row relationship work searches by foreign keys: it needs the indexes.
        try buildDeferredIndexes(thenResume: (mapping.name, index, mappingModel.entityMappings.count))
        var after: Int64 = 0
        var reported = 0
        while true {
            try checkCancelled()
            let page = try pass.associations.page(mapping: index, after: after, limit: pass.chunkSize)
            try transaction {
                for pair in page {
                    if policy.usesDefaultRelationships {
                        try createDefaultRelationships(forDestination: pair.destination, in: mapping, skipping: handled)
                    } else {
                        try policy.createRelationships(forDestination: pair.destination, in: mapping, manager: self)
                        try pass.writePendingInsert()
                    }
                }
            }
            after = page.last?.rowid ?? after
            let units = min(page.count, max(sourceCount - reported, 0))
            reported += units
            pass.progress.advance(units: units, rows: page.count)
            if page.count < pass.chunkSize { return reported }
        }
    }

    // MARK: Stage 3

    /// Stage 3: the destination validated, then each policy's own validation and end.
    private func validate(_ policies: [EntityMigrationPolicy], step: Int) throws {
        let mappings = mappingModel.entityMappings
        try buildDeferredIndexes(thenResume: nil)
        let created = pass.writer.insertedCounts
        pass.progress.begin(stage: .validate, pass: mappingModel.name, step: step, mapping: nil, index: 0, count: mappings.count,
                       rowsTotal: created.values.reduce(0, +))
        var checking = destinationModel.entities.makeIterator()
        try ModelRuleCheck(manager: self).validate {
            let rows = checking.next().map { created[$0.name, default: 0] } ?? 0
            pass.progress.advance(units: rows, rows: rows)
        }
        for (mapping, policy) in zip(mappings, policies) {
            try transaction {
                try policy.performCustomValidation(for: mapping, manager: self)
                try policy.end(mapping, manager: self)
            }
        }
        // The policies' look-up indexes go before the store is verified against a new one's schema.
        try dropLookups()
    }

    /// Builds the destination's deferred indexes (once per step) as a stage of its own; a
    /// relationship stage that needs them mid-way then carries on as `resume` says.
    private func buildDeferredIndexes(thenResume resume: (mapping: String, index: Int, count: Int)?) throws {
        let indexes = StoreSchema(layout: pass.destinationLayout).indexes
        guard let deferredIndexes = pass.deferredIndexes, let first = indexes.first,
              try pass.connection.integer(SQLStatement("SELECT count(*) FROM main.sqlite_master WHERE type = 'index' AND name = ?", [.text(first.name)])) == 0 else {
            return
        }
        pass.progress.begin(stage: .indexes, mapping: nil, index: 0, count: 0, rowsTotal: indexes.count, unit: .indexes)
        try deferredIndexes.create(on: pass.connection) { pass.progress.advance(units: 1) }
        if let resume {
            pass.progress.begin(stage: .createRelationships, mapping: resume.mapping, index: resume.index + 1, count: resume.count,
                           rowsTotal: try pass.associations.count(mapping: resume.index))
        }
    }

    /// The policy of every entity mapping of the pass, found by name; remembered for the pass.
    func resolvePolicies() throws -> [EntityMigrationPolicy] {
        let resolved = try mappingModel.entityMappings.map { mapping -> EntityMigrationPolicy in
            guard let name = mapping.policyName else { return DefaultEntityMigrationPolicy() }
            guard let policy = self.policies.policy(named: name) else {
                throw MigrationError(.missingPolicy, "entity mapping \(mapping.name) of \(mappingModel.name) names policy \(name), which is not registered",
                                     fix: "register a policy under that name (registered: \(self.policies.names.isEmpty ? "none" : self.policies.names.joined(separator: ", ")))")
            }
            return policy
        }
        pass.policiesByMapping = Dictionary(zip(mappingModel.entityMappings.map(\.name), resolved), uniquingKeysWith: { first, _ in first })
        return resolved
    }

    /// Whether `mapping`'s policy leaves relationships to Core Data's default.
    func usesDefaultRelationships(_ mapping: EntityMapping) -> Bool {
        pass.policiesByMapping[mapping.name]?.usesDefaultRelationships ?? (mapping.policyName == nil)
    }

    /// Step mode: report what `mapping` did, wait for the watcher, and stop if it cancelled.
    private func pause(after mapping: EntityMapping, index: Int, stage: MigrationProgress.Stage, next: String?) throws {
        guard let pause = pass.pauseAfterEntityMapping else { return }
        pause(try stepReport(mapping, index: index, stage: stage, next: next))
        try checkCancelled()
    }

    /// Runs `body` in one transaction and records the keys handed out, as a save does. An
    /// instance still held back is written before the commit, or dropped with a rollback.
    func transaction(_ body: () throws -> Void) throws {
        defer { pass.pendingInsert = nil }
        try pass.connection.inTransaction {
            try body()
            try pass.writePendingInsert()
            try pass.writer.finish()
        }
    }

    private func matches(_ filter: Predicate, source: ObjectID, mapping: EntityMapping) throws -> Bool {
        let scope = MigrationScope(manager: self, source: source, destination: nil, mapping: mapping)
        do {
            return try PredicateEvaluator(evaluator: ExpressionEvaluator(context: scope, evaluatedObject: .object(ObjectRef(side: .source, id: source))))
                .matches(filter)
        } catch let error as EvaluationError {
            throw MigrationError(.evaluation, "\(mapping.name) filter \(filter): \(error)", fix: "correct the filter predicate")
        }
    }
}
