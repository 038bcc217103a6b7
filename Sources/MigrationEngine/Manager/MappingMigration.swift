import Foundation
import GRDB
import ObjectModel
import SQLiteStore

/// Migrates a store from one model version to the next with mapping models: into a new file
/// beside it, verified, then swapped in. The source is only ever read; on any error or cancel
/// the new file is removed and the source stays byte for byte as it was.
public enum MappingMigration {
    /// Runs the `mappings` (in order, as passes into one destination) over the store at `path`.
    public static func run(store path: String, from source: ModelBundle.Version, to destination: ModelBundle.Version,
                           mappings: [MappingModel], options: MigrationOptions = MigrationOptions()) throws -> MigrationReport {
        let started = Date()
        let lock = options.lockHeld ? nil : try StoreLock(store: path)
        defer { withExtendedLifetime(lock) {} }
        if lock != nil { try StoreSwap.recover(store: path) }
        let paths = StoreSwap.Paths(store: path)
        // Before this process opens the store (see OtherWriters: the probe must not share it).
        try OtherWriters.waitUntilNone(store: path)
        let fingerprint = OtherWriters.Fingerprint(store: path)

        let sourceStore = try PersistentStore.open(at: path)
        let metadata = try sourceStore.metadata()
        guard source.entityHashes == metadata.versionHashes else {
            let differing = Set(metadata.versionHashes.keys).union(source.entityHashes.keys)
                .filter { metadata.versionHashes[$0] != source.entityHashes[$0] }.sorted()
            throw MigrationError(.wrongModel, "\(path) is not at version \(source.name): its entity hashes differ for \(differing.joined(separator: ", "))",
                                 fix: "run `chrysalis inspect \(path) --model …` to see which version it is at, and use that version's mapping")
        }
        let resolved = try mappings.map { mapping -> MappingModel in
            guard mapping.sourceVersion == source.name, mapping.destinationVersion == destination.name else {
                throw MigrationError(.wrongModel, "mapping \(mapping.name) maps \(mapping.sourceVersion) → \(mapping.destinationVersion), not \(source.name) → \(destination.name)",
                                     fix: "use a mapping model made for \(source.name) → \(destination.name)")
            }
            return try mapping.resolved(source: source.model, destination: destination.model)
        }
        let sourceLayout = try sourceStore.layout(for: source.model)
        // Sizes for progress, the space check and the report; the verification below counts what
        // the new store holds against what the passes inserted.
        let rowsBefore = try options.verifiedRows?.rows(matching: fingerprint, model: source.model) ?? sourceStore.tableRowCounts(model: source.model)
        let sourceURI = sourceStore.readOnlyURI
        let stepName = "\(source.name) → \(destination.name)"
        let space = SpaceCheck(.newStore(rows: rowsBefore.values.reduce(0, +)), store: path)
        try space.require(store: path, step: stepName)
        let permissions = try FilePermissions(of: path)

        var newStore: PersistentStore?
        do {
            try permissions.createEmpty(paths.newStore)
            try permissions.createEmpty(paths.workStore)
            let created = try PersistentStore.create(at: paths.newStore, model: destination.model, uuid: metadata.uuid, replacingEmptyFile: true)
            newStore = created
            var carried = metadata
            carried.setModel(destination.model)
            try created.writeMetadata(carried)
            let destinationLayout = StoreLayout(model: destination.model)
            var inserted: [String: Int] = [:]
            var reporter: ProgressReporter?
            try created.withConnection { db in
                try db.execute(sql: "ATTACH DATABASE ? AS src", arguments: [sourceURI])
                try db.execute(sql: "ATTACH DATABASE ? AS work", arguments: [paths.workStore])
                defer { try? db.execute(sql: "DETACH DATABASE src"); try? db.execute(sql: "DETACH DATABASE work") }
                // The new store and the work file are thrown away if anything fails (no error is
                // ever caught and carried on from), so while they fill they need neither syncing
                // nor a journal: every page is written once, not to the WAL and again by each
                // checkpoint, and no copy of old pages is kept (an in-memory journal would hold
                // every page a stage-2 UPDATE touches). The new store goes back to WAL and is
                // synced before it is verified and swapped in.
                try db.execute(sql: """
                    PRAGMA main.synchronous = OFF; PRAGMA main.journal_mode = OFF; PRAGMA work.synchronous = OFF; PRAGMA work.journal_mode = OFF;
                    PRAGMA main.cache_size = -16384; PRAGMA src.cache_size = -8192; PRAGMA work.cache_size = -8192
                    """)
                let deferred = try DeferredIndexes.drop(in: db, layout: destinationLayout)
                let probe = MigrationManager(db: db, sourceStore: sourceStore, sourceLayout: sourceLayout, destinationLayout: destinationLayout,
                                             destinationPath: paths.newStore, mappingModel: resolved[0], policies: options.policies,
                                             cancellation: options.cancellation, progress: .silent(), chunkSize: options.chunkSize)
                probe.sourceRowCounts = rowsBefore
                var counts: [String: Int] = rowsBefore
                for mapping in resolved {
                    probe.mappingModel = mapping
                    for (entityMapping, count) in zip(mapping.entityMappings, try probe.sourceCounts()) { counts[entityMapping.sourceEntity ?? ""] = count }
                }
                let progress = ProgressReporter(budget: StageCost.mappingStep(resolved, sourceRows: counts, policies: options.policies), options: options)
                reporter = progress
                for mapping in resolved {
                    let manager = MigrationManager(db: db, sourceStore: sourceStore, sourceLayout: sourceLayout, destinationLayout: destinationLayout,
                                                   destinationPath: paths.newStore, mappingModel: mapping, policies: options.policies,
                                                   cancellation: options.cancellation, progress: progress, chunkSize: options.chunkSize)
                    try options.configureManager?(manager)
                    manager.pauseAfterEntityMapping = options.pauseAfterEntityMapping
                    manager.deferredIndexes = deferred
                    manager.sourceRowCounts = rowsBefore
                    try manager.runPass(step: options.step)
                    inserted.merge(manager.writer.insertedCounts, uniquingKeysWith: +)
                }
                try deferred.create(in: db)
                try db.execute(sql: "PRAGMA main.synchronous = FULL; PRAGMA main.journal_mode = WAL")
                let insertedRows = inserted.values.reduce(0, +)
                progress.begin(stage: .verify, mapping: nil, index: 0, count: 0, rowsTotal: insertedRows)
                try verify(db, layout: destinationLayout, inserted: inserted, path: path)
                progress.advance(units: insertedRows, rows: insertedRows)
                _ = try Row.fetchAll(db, sql: "PRAGMA main.wal_checkpoint(TRUNCATE)")
                progress.begin(stage: .swap, mapping: nil, index: 0, count: 0, rowsTotal: 1, unit: .files)
            }
            // Verification counted every entity's rows and found exactly what the passes inserted.
            let rowsAfter = Dictionary(uniqueKeysWithValues: destination.model.entities.map { ($0.name, inserted[$0.name, default: 0]) })
            try created.close()
            newStore = nil
            // Filled without syncing (see the pragmas above): on disk whole before it takes the name.
            try StoreSwap.syncFile(paths.newStore)
            unlink(paths.workStore)
            try permissions.apply(to: paths.newStore)
            try fingerprint.requireUnchanged(store: path)
            let backup: String?
            if options.replacesSource { try StoreSwap.replace(paths); backup = nil } else { backup = try StoreSwap.swap(paths, backup: options.backupPath) }
            reporter?.finish()
            return MigrationReport(store: path, backup: backup, sourceVersion: source.name, destinationVersion: destination.name,
                                   passes: resolved.map(\.name), rowsBefore: rowsBefore, rowsAfter: rowsAfter,
                                   duration: Date().timeIntervalSince(started))
        } catch {
            try? newStore?.close()
            for file in [paths.newStore, paths.workStore] {
                for suffix in [""] + StoreSwap.sidecars { unlink(file + suffix) }
            }
            throw paths.describing(space.explain(error, store: path, step: stepName))
        }
    }

    /// The new store must be sound and hold exactly the instances the migration inserted.
    /// `quick_check` reads every page and checks every b-tree (what a failed or torn write
    /// breaks); `integrity_check` would also cross-check each index against its table, which
    /// only an SQLite bug could break in a file SQLite just wrote, at about six times the cost.
    private static func verify(_ db: Database, layout: StoreLayout, inserted: [String: Int], path: String) throws {
        let integrity = try String.fetchAll(db, sql: "PRAGMA main.quick_check")
        guard integrity == ["ok"] else {
            throw MigrationError(.verification, "the migrated store failed SQLite's quick check: \(integrity.prefix(3).joined(separator: "; "))",
                                 fix: "the source is untouched; report this with the store's model")
        }
        let reader = ObjectReader(db: db, layout: layout, schema: "main", path: path)
        let entitiesByTable = Dictionary(grouping: layout.model.entities) { layout.table(for: $0.name)?.name ?? "" }
        for entity in layout.model.entities where !entity.isAbstract {
            // A table only this entity lives in is counted from its b-tree, without reading a row.
            let count = if let table = layout.table(for: entity.name), entitiesByTable[table.name]?.count == 1 {
                try Int.fetchOne(db, sql: "SELECT count(*) FROM main.\(ColumnNaming.quote(table.name))") ?? 0
            } else {
                try reader.count(of: entity.name, includingSubentities: false)
            }
            guard count == inserted[entity.name, default: 0] else {
                throw MigrationError(.verification, "the migrated store has \(count) \(entity.name) rows but the migration created \(inserted[entity.name, default: 0])",
                                     fix: "the source is untouched; report this with the mapping model")
            }
        }
    }
}
