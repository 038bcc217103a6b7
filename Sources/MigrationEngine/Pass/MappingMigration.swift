import Foundation
import ObjectModel
import SQLiteStore

/// Migrates a store from one model version to the next with mapping models: into a new file
/// beside it, verified, then swapped in. The source is only ever read; on any error or cancel
/// the new file is removed and the source stays byte for byte as it was.
///
/// One instance owns one running step, and its stages read top to bottom in `run()`: prepare
/// (lock, check, resolve, count, make the new store), the passes, verify, swap.
package final class MappingMigration {
    /// Runs the `mappings` (in order, as passes into one destination) over the store at `path`,
    /// as `context`'s step.
    static func run(
        store path: String, from source: ModelBundle.Version, to destination: ModelBundle.Version,
        mappings: [MappingModel], context: StepContext
    ) throws -> MigrationReport {
        let step = try MappingMigration(
            store: path, from: source, to: destination, mappings: mappings, context: context)
        return try step.start.holdingLock { try step.run() }
    }

    private let path: String
    private let source: ModelBundle.Version, destination: ModelBundle.Version
    private let context: StepContext
    private let started = Date()
    /// The plan's paused seconds when this step started: a pause is not the step's time.
    private let pausedAtStart: Double
    private let paths: StoreSwap.Paths
    /// The lock, the version check, the room and the failure's words.
    private let start: StepStart
    /// Taken before this process opens the store (see OtherWriters: the probe must not share it).
    private let fingerprint: OtherWriters.Fingerprint
    private let sourceStore: PersistentStore
    /// `PRAGMA data_version` when the step opened the store: another connection's commit since
    /// changes it (``writtenByOthers()``).
    private let dataVersion: Int
    private let metadata: StoreMetadata
    /// The mapping models, resolved against the two versions: one pass each, in order.
    private let passes: [MappingModel]
    private let sourceLayout: StoreLayout
    private let destinationLayout: StoreLayout
    /// Rows per concrete source entity: for progress, the space check and the report.
    private let rowsBefore: [String: Int]
    private let space: SpaceCheck
    private var reporter: ProgressReporter?
    /// What the new store holds once verified, when the plan asks (``StepContext/summarizesContents``).
    private var contents: ContentSummary?

    /// Prepares the step: the lock, leftovers of a crashed step undone, no other writer, the
    /// store checked to be at `source`, the mappings resolved, its layout read and its rows counted.
    private init(
        store path: String, from source: ModelBundle.Version, to destination: ModelBundle.Version,
        mappings: [MappingModel],
        context: StepContext
    ) throws {
        pausedAtStart = context.progress.span.paused.seconds
        (self.path, self.source, self.destination, self.context) = (path, source, destination, context)
        start = try StepStart(store: path, step: "\(source.name) → \(destination.name)", context: context)
        paths = StoreSwap.Paths(store: path)
        try OtherWriters.waitUntilNone(store: path)
        fingerprint = OtherWriters.Fingerprint(store: path)
        sourceStore = try PersistentStore.open(at: path)
        dataVersion = try sourceStore.dataVersion()
        // Another process's commit since the step before would be copied under the wrong
        // model, or missed: the plan stops here, with it kept.
        try sourceStore.withReadConnection { connection in
            try OtherWriters.requireUnchanged(connection, since: context.contentsBefore, store: path)
        }
        let metadata = try sourceStore.metadata()
        self.metadata = metadata
        try start.requireVersion(source, metadata: metadata)
        passes = try Self.resolve(mappings, from: source, to: destination)
        sourceLayout = try sourceStore.layout(for: source.model)
        destinationLayout = StoreLayout(model: destination.model)
        // The verification counts what the new store holds against what the passes inserted.
        rowsBefore =
            try context.verifiedRows?.rows(matching: fingerprint, model: source.model)
            ?? sourceStore.tableRowCounts(model: source.model)
        space = SpaceCheck(.newStore(rows: rowsBefore.values.reduce(0, +)), store: path)
    }

    /// The step's stages, in order.
    private func run() throws -> MigrationReport {
        try space.require(store: path, step: start.name)
        let permissions = try FilePermissions(of: path)
        var newStore: PersistentStore?
        do {
            let created = try createNewStore(permissions)
            newStore = created
            let inserted = try created.withConnection { connection in try fill(connection) }
            try created.close()
            newStore = nil
            let backup = try swapIn(permissions)
            reporter?.finish()
            // Verification counted every entity's rows and found exactly what the passes inserted.
            let rowsAfter = Dictionary(
                uniqueKeysWithValues: destination.model.entities.map { ($0.name, inserted[$0.name, default: 0]) })
            var report = MigrationReport(
                store: path, backup: backup, sourceVersion: source.name, destinationVersion: destination.name,
                passes: passes.map(\.name), rowsBefore: rowsBefore, rowsAfter: rowsAfter,
                duration: Date().timeIntervalSince(started) - (context.progress.span.paused.seconds - pausedAtStart),
                pagesChecked: context.checksPages)
            report.contents = contents
            return report
        } catch {
            // A count that no longer adds up because another process wrote is that write's doing.
            let error = writtenByOthers() ? OtherWriters.foreignWrite(store: path) : error
            try? newStore?.close()
            for file in [paths.newStore, paths.workStore] {
                for path in StoreFiles.paths(of: file) { unlink(path) }
            }
            throw start.failed(error, space: space)
        }
    }

    /// Whether another process wrote the store since the step began: its files changed, or
    /// SQLite counted another connection's commit (a write before the step opened the store is
    /// the plan's to find: ``MigrationRunner`` recounts before it puts anything back).
    private func writtenByOthers() -> Bool {
        if fingerprint.changed(store: path) { return true }
        return (try? sourceStore.dataVersion()).map { $0 != dataVersion } ?? false
    }

    // MARK: Prepare

    /// Each mapping checked to be for this step, and resolved against its two versions.
    private static func resolve(
        _ mappings: [MappingModel], from source: ModelBundle.Version, to destination: ModelBundle.Version
    ) throws -> [MappingModel] {
        try mappings.map { mapping in
            guard mapping.sourceVersion == source.name, mapping.destinationVersion == destination.name else {
                throw MigrationError(
                    .wrongModel,
                    """
                    mapping \(mapping.name) maps \(mapping.sourceVersion) → \(mapping.destinationVersion), not \
                    \(source.name) → \(destination.name)
                    """,
                    fix: "use a mapping model made for \(source.name) → \(destination.name)")
            }
            return try mapping.resolved(source: source.model, destination: destination.model)
        }
    }

    /// The new store beside the source, with the source's UUID and metadata carried over, and
    /// the empty work file beside it; both with the source's permissions from the start.
    private func createNewStore(_ permissions: FilePermissions) throws -> PersistentStore {
        try permissions.createEmpty(paths.newStore)
        try permissions.createEmpty(paths.workStore)
        // The source's page size and auto-vacuum mode, as an app may have tuned them.
        let created = try PersistentStore.create(
            at: paths.newStore, model: destination.model, uuid: metadata.uuid, replacingEmptyFile: true,
            pages: try sourceStore.pageSettings())
        var carried = metadata
        carried.setModel(destination.model)
        try created.writeMetadata(carried)
        // The header fields an app keeps for itself go with its data into the new file.
        let header = try sourceStore.appHeaderFields()
        try created.setAppHeaderFields(userVersion: header.userVersion, applicationID: header.applicationID)
        return created
    }

    // MARK: Passes and verification

    /// Fills the new store on its connection, with the source and the work file attached: the
    /// passes in order, the deferred indexes, then verification. Returns the rows inserted per
    /// entity.
    private func fill(_ connection: StoreConnection) throws -> [String: Int] {
        try connection.attach(sourceStore.readOnlyURI, as: "src")
        try connection.attach(paths.workStore, as: AssociationTable.schema)
        defer { try? connection.detach("src"); try? connection.detach(AssociationTable.schema) }
        // The new store and the work file are thrown away if anything fails, so while they fill
        // they need neither syncing nor a journal; the store goes back to WAL, synced, before it
        // is verified and swapped in.
        try connection.beginBulkLoad(scratch: AssociationTable.schema, source: "src")
        let deferred = try DeferredIndexes.drop(on: connection, layout: destinationLayout)
        let progress = ProgressReporter(
            budget: StageCost.mappingStep(
                passes, sourceRows: try sourceRows(connection),
                createsOwnRelationships: context.policies.createsOwnRelationships),
            target: context.progress)
        reporter = progress
        var inserted: [String: Int] = [:]
        for mapping in passes {
            let pass = makePass(connection, mapping: mapping, progress: progress)
            try context.configureManager?(pass.manager)
            if let pause = context.pauseAfterEntityMapping {
                let paused = context.progress.span.paused
                pass.pauseAfterEntityMapping = { @Sendable (report: StepReport) -> Void in
                    paused.counting { pause(report) }
                }
            }
            pass.deferredIndexes = deferred
            try pass.run(step: context.progress.step)
            inserted.merge(pass.stores.writer.insertedCounts, uniquingKeysWith: +)
        }
        try deferred.create(on: connection)
        // Core Data's new store has the destination's derived-attribute triggers; made once the
        // rows are in, with every value computed as they would have kept it.
        try connection.execute(DerivedAttributeTriggers(layout: destinationLayout).statements)
        try connection.endBulkLoad()
        let insertedRows = inserted.values.reduce(0, +)
        progress.begin(stage: .verify, mapping: nil, index: 0, count: 0, rowsTotal: insertedRows)
        try verify(connection, inserted: inserted)
        progress.advance(units: insertedRows, rows: insertedRows)
        try connection.checkpoint()
        if context.summarizesContents { contents = try connection.contentSummary() }
        progress.begin(stage: .swap, mapping: nil, index: 0, count: 0, rowsTotal: 1, unit: .files)
        return inserted
    }

    /// One pass over `connection`, with its manager.
    private func makePass(_ connection: StoreConnection, mapping: MappingModel, progress: ProgressReporter)
        -> MappingPass
    {
        let manager = MigrationManager(
            connection: connection, sourceStore: sourceStore, sourceLayout: sourceLayout,
            destinationLayout: destinationLayout,
            destinationPath: paths.newStore, mappingModel: mapping, policies: context.policies,
            cancellation: context.cancellation, run: context.runState)
        let pass = MappingPass(manager: manager, progress: progress, chunkSize: context.chunkSize)
        pass.sourceRowCounts = rowsBefore
        return pass
    }

    /// Rows each pass's entity mappings visit, by source entity: what the step's progress
    /// budget is made of.
    private func sourceRows(_ connection: StoreConnection) throws -> [String: Int] {
        var counts = rowsBefore
        guard let first = passes.first else { return counts }
        let probe = makePass(connection, mapping: first, progress: .silent())
        for mapping in passes {
            probe.manager.mappingModel = mapping
            for (entityMapping, count) in zip(mapping.entityMappings, try probe.sourceCounts()) {
                counts[entityMapping.sourceEntity ?? ""] = count
            }
        }
        return counts
    }

    /// The new store must hold exactly the instances the migration inserted: every entity's rows
    /// are counted against what the passes created. Reading every page as well (`quick_check`,
    /// a read of the whole file just written) is what `checksPages` asks for: SQLite
    /// reports a write that failed as it fails, and a write torn by a crash is in a new store
    /// that is thrown away, so a file SQLite just wrote without error is whole. Core Data checks
    /// neither.
    private func verify(_ connection: StoreConnection, inserted: [String: Int]) throws {
        if context.checksPages, case let integrity = try connection.quickCheck(), integrity != ["ok"] {
            throw MigrationError(
                .verification,
                "the migrated store failed SQLite's quick check: \(integrity.prefix(3).joined(separator: "; "))",
                fix: "the source is untouched; report this with the store's model")
        }
        let layout = destinationLayout
        let reader = ObjectReader(connection: connection, layout: layout, schema: "main", path: path)
        let entitiesByTable = Dictionary(grouping: layout.model.entities) { layout.table(for: $0.name)?.name ?? "" }
        for entity in layout.model.entities where !entity.isAbstract {
            // A table only this entity lives in is counted from its b-tree, without reading a row.
            let count =
                if let table = layout.table(for: entity.name), entitiesByTable[table.name]?.count == 1 {
                    Int(
                        try connection.integer(
                            SQLStatement("SELECT count(*) FROM main.\(SQLIdentifier.quote(table.name))")) ?? 0)
                } else {
                    try reader.count(of: entity.name, includingSubentities: false)
                }
            guard count == inserted[entity.name, default: 0] else {
                throw MigrationError(
                    .verification,
                    """
                    the migrated store has \(count) \(entity.name) rows but the migration created \
                    \(inserted[entity.name, default: 0])
                    """,
                    fix: "the source is untouched; report this with the mapping model")
            }
        }
    }

    // MARK: Swap

    /// The filled store, synced, given the source's permissions and swapped in (or, in a plan
    /// that keeps the original elsewhere, put in its place); returns the backup's path.
    private func swapIn(_ permissions: FilePermissions) throws -> String? {
        // Filled without syncing (see beginBulkLoad): on disk whole before it takes the name.
        try StoreSwap.syncFile(paths.newStore)
        unlink(paths.workStore)
        try permissions.apply(to: paths.newStore)
        if writtenByOthers() { throw OtherWriters.foreignWrite(store: path) }
        try OpenHandles.requireNone(store: path, before: "the swap")
        if context.replacesSource {
            try StoreSwap.replace(paths)
            return nil
        }
        return try StoreSwap.swap(paths, backup: context.backupPath)
    }
}
