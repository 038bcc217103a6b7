import ObjectModel
import SQLiteStore

/// A mapping step's SQL as a plan shows it: per pass and entity mapping, stage 1's inserts and
/// stage 2's updates, compiled by a manager set up as a run sets one up (the registered policies,
/// the program's manager hook) but that runs nothing.
///
/// What a run decides only as it goes is shown as the two forms it chooses between: a mapping
/// whose source keys run without a gap keeps them (one `INSERT … SELECT` per chunk, no
/// association rows), otherwise its keys are renumbered through `work.associations`; stage 2's
/// statements change with it.
struct MappingStepSQL {
    let connection: StoreConnection
    let store: PersistentStore
    let step: MigrationPlan.Step
    let layouts: (source: StoreLayout, destination: StoreLayout)
    let options: MigrationOptions

    typealias Part = StepStatements.Part

    func described(_ mappings: [MappingModel]) throws -> StepStatements {
        let passes = try mappings.map {
            try $0.resolved(source: step.source.model, destination: step.destination.model)
        }
        let indexes = StoreSchema(layout: layouts.destination).indexes
        var parts = [
            Part(title: "indexes held back while the new store fills", statements: indexes.map(\.dropStatement))
        ]
        for pass in passes { parts += try passParts(pass) }
        parts.append(
            Part(
                title: "indexes built", statements: indexes.map(\.statement),
                notes: ["before the first stage 2 that runs row by row, or else before validation"]))
        let derived = DerivedAttributeTriggers(layout: layouts.destination).statements
        if !derived.isEmpty {
            parts.append(Part(title: "derived attributes computed, their triggers made", statements: derived))
        }
        parts.append(
            Part(
                title: "stage 3 · validate",
                notes: ["queries check required values and relationship counts in the new store; nothing is written"]))
        return StepStatements(
            source: step.source.name, destination: step.destination.name,
            summary:
                """
                into a new store beside the source (the source attached read-only as src, the pairs kept in the \
                work file as work), verified, then swapped in
                """,
            parts: parts)
    }

    /// A manager for `pass` that a run would make, with the program's hook applied.
    private func manager(for pass: MappingModel) throws -> MigrationManager {
        let manager = MigrationManager(
            connection: connection, sourceStore: store, sourceLayout: layouts.source,
            destinationLayout: layouts.destination,
            destinationPath: store.path, mappingModel: pass, policies: options.policies,
            cancellation: CancellationToken())
        try options.configureManager?(manager)
        // A policy that is not registered stays custom: the plan says so before any run.
        _ = try? manager.resolvePolicies()
        return manager
    }

    /// Stage 1 of every entity mapping of the pass, then stage 2 of every one.
    private func passParts(_ pass: MappingModel) throws -> [Part] {
        let manager = try manager(for: pass)
        let mappings = pass.entityMappings
        let kept = keptKeys(manager)
        var parts: [Part] = []
        for (index, mapping) in mappings.enumerated() {
            parts += stage1(
                manager, mapping, index: index, kept: kept, title: "stage 1 · \(pass.name): \(mapping.name)")
        }
        for (index, mapping) in mappings.enumerated() {
            parts += try stage2(
                manager, mapping, index: index, kept: kept, title: "stage 2 · \(pass.name): \(mapping.name)")
        }
        return parts
    }

    /// The identities a run gives the set-based mappings without a filter when their source keys
    /// run without a gap, with their key ranges left as parameters.
    private func keptKeys(_ manager: MigrationManager) -> [Int: AssociationTable.Identity] {
        guard manager.useSetBasedSQL else { return [:] }
        var identities: [Int: AssociationTable.Identity] = [:]
        for (index, mapping) in manager.mappingModel.entityMappings.enumerated() {
            guard case .setBased(let sql) = InstanceInsertSQL.compile(manager: manager, mapping: mapping, index: index),
                sql.filter == nil
            else { continue }
            identities[index] = AssociationTable.Identity(
                sourceTable: sql.sourceTableName, sourceEntity: sql.sourceNumber,
                destinationEntity: sql.destinationNumber, keys: 1...1, plannedFor: mapping.name)
        }
        return identities
    }

    private func stage1(
        _ manager: MigrationManager, _ mapping: EntityMapping, index: Int, kept: [Int: AssociationTable.Identity],
        title: String
    ) -> [Part] {
        guard manager.useSetBasedSQL else {
            return [Part(title: title, rowByRow: "set-based SQL is turned off for this run")]
        }
        switch InstanceInsertSQL.compile(manager: manager, mapping: mapping, index: index) {
        case .rowByRow(let reason):
            return [Part(title: title, rowByRow: reason)]
        case .noSource:
            return [
                Part(title: title, notes: ["no source entity: reads no rows (only its policy's begin and end run)"])
            ]
        case .setBased(let sql):
            let notes = insertNotes(manager, mapping, sql: sql)
            manager.stores.associations.assumeIdentities([:])
            let renumbered = sql.renumberedInserts(manager.stores.associations)
            guard kept[index] != nil else {
                return [
                    Part(
                        title: title, statements: renumbered,
                        notes: notes + ["its filter decides which rows; their keys are renumbered from :first_key"])
                ]
            }
            manager.stores.associations.assumeIdentities(kept)
            let keptInsert = sql.keptKeysInsert(manager.stores.associations)
            manager.stores.associations.assumeIdentities([:])
            return [
                Part(
                    title: title + " (keys kept)", statements: [keptInsert],
                    notes: notes + [
                        """
                        when the source keys run without a gap from the next free key: each row keeps its Z_PK, no \
                        pair is written
                        """
                    ]),
                Part(
                    title: title + " (keys renumbered)", statements: renumbered,
                    notes: [
                        "otherwise: keys :first_key … :last_key reserved per chunk, each pair kept in work.associations"
                    ]),
            ]
        }
    }

    /// What a set-based insert's statements do beyond what they say: chunks, folded to-ones, the hook.
    private func insertNotes(_ manager: MigrationManager, _ mapping: EntityMapping, sql: InstanceInsertSQL) -> [String]
    {
        var notes = ["per chunk of up to \(options.chunkSize) source rows: :from ≤ Z_PK ≤ :last"]
        if !sql.foldedRelationships.isEmpty {
            notes.append(
                """
                sets the to-ones \(sql.foldedRelationships.sorted().joined(separator: ", ")) too, so stage 2 \
                leaves them
                """
            )
        }
        if let entity = mapping.destinationEntity, manager.didAssociate != nil,
            manager.didAssociateEntities.map({ $0.contains(entity) }) ?? true
        {
            notes.append("then the program's association hook sees each pair, in Swift")
        }
        return notes
    }

    private func stage2(
        _ manager: MigrationManager, _ mapping: EntityMapping, index: Int, kept: [Int: AssociationTable.Identity],
        title: String
    ) throws
        -> [Part]
    {
        let policy =
            manager.passState.policiesByMapping[mapping.name]
            ?? (mapping.policyName == nil ? DefaultEntityMigrationPolicy() : nil)
        guard let policy, policy.usesDefaultRelationships else {
            return [
                Part(
                    title: title,
                    rowByRow: "custom policy \(mapping.policyName ?? "") sets each instance's relationships")
            ]
        }
        let setBased =
            manager.useSetBasedSQL
            ? SetBasedRelationships(
                pass: MappingPass(manager: manager, progress: .silent(), chunkSize: options.chunkSize)) : nil
        let handled = setBased?.handled(mapping, policy: policy) ?? []
        var parts: [Part] = []
        if let setBased, !handled.isEmpty {
            parts += try setBasedParts(
                setBased, manager, mapping, index: index, kept: kept, handled: handled, title: title)
        }
        let rest = mapping.relationshipMappings.filter { $0.expression != nil && !handled.contains($0.name) }.map(
            \.name)
        if !rest.isEmpty {
            parts.append(
                Part(
                    title: title, rowByRow: "\(rest.joined(separator: ", ")): value expressions evaluated per instance")
            )
        }
        return parts
    }

    /// Stage 2's statements for the relationships `handled` set-based: one form, or the two a run
    /// chooses between (keys kept, keys renumbered) when they differ.
    private func setBasedParts(
        _ setBased: SetBasedRelationships, _ manager: MigrationManager, _ mapping: EntityMapping, index: Int,
        kept: [Int: AssociationTable.Identity], handled: Set<String>, title: String
    ) throws -> [Part] {
        manager.stores.associations.assumeIdentities(kept)
        let keptStatements = try setBased.statements(mapping, index: index, names: handled)
        manager.stores.associations.assumeIdentities([:])
        let renumbered = try setBased.statements(mapping, index: index, names: handled)
        let note = "sets \(handled.sorted().joined(separator: ", "))"
        guard keptStatements != renumbered else {
            return [
                Part(
                    title: title, statements: renumbered,
                    notes: [note + (renumbered.isEmpty ? ": written by stage 1, or by their inverse" : "")])
            ]
        }
        return [
            Part(
                title: title + " (keys kept)", statements: keptStatements,
                notes: [note + ", when the mappings involved kept their keys"]),
            Part(
                title: title + " (keys renumbered)", statements: renumbered,
                notes: ["otherwise, through work.associations"]),
        ]
    }
}
