import ObjectModel
import SQLiteStore

/// What differs between the kinds of step, said by each kind in one type (``MigrationPlan/Kind/work``):
/// the step's share of the plan's bar, the room it needs, its statements, and how it runs. The
/// plan's costs, its space check, `plan --sql` and ``MigrationRunner`` ask the step's work and
/// never switch on its kind, so a new kind of step is a case of ``MigrationPlan/Kind``, its
/// ``MigrationPlan/Kind/Name``, a type here, and the planner that makes it.
protocol StepWork {
    /// The step's expected cost, for its share of the plan's bar, from the store's size alone
    /// (`rows` estimated from `bytes`; `backup` when the step keeps the plan's backup).
    func planCost(_ step: MigrationPlan.Step, rows: Int, bytes: Int, backup: Bool, policies: PolicyRegistry) -> Double
    /// What the step needs on disk, and the name the space check gives the step.
    func space(_ step: MigrationPlan.Step, rows: Int, store: String, backup: Bool) -> (work: SpaceCheck, name: String)
    /// The SQL the step will run, compiled on `layouts` (the first step's source read from the
    /// store, every other layout predicted), for `plan --sql`.
    func statements(
        _ step: MigrationPlan.Step, first: Bool, on connection: StoreConnection, store: PersistentStore,
        layouts: (source: StoreLayout, destination: StoreLayout), options: MigrationOptions
    ) throws -> StepStatements
    /// Runs the step on the store at `path`, as `context`'s step of its plan.
    func run(_ step: MigrationPlan.Step, store path: String, context: StepContext) throws -> MigrationReport
}

extension MigrationPlan.Kind {
    /// The step's work, by its kind: the one place that switches on a kind to do something.
    var work: any StepWork {
        switch self {
        case .lightweight(let inference): return LightweightWork(inference: inference)
        case .mapping(let models): return MappingWork(models: models)
        case .handler(let handler): return HandlerWork(handler: handler)
        }
    }
}

/// An inferred step: SQL on the store itself, in one transaction (``InPlaceMigration``).
struct LightweightWork: StepWork {
    let inference: InferredMapping

    /// The step's SQL on its predicted layouts, which say whether rows can change (and must be
    /// counted) and what is rebuilt.
    private func predictedSQL(_ step: MigrationPlan.Step) -> LightweightSQL {
        step.predictedSQL
            ?? LightweightSQL(
                inference: inference, source: step.predicted.source, destination: step.predicted.destination)
    }

    func planCost(_ step: MigrationPlan.Step, rows: Int, bytes: Int, backup: Bool, policies: PolicyRegistry) -> Double {
        let sql = predictedSQL(step)
        return StageCost.inferredStep(
            rows: rows, bytes: bytes, backup: backup, rebuilds: sql.rebuildsTables(), countsRows: !sql.preservesRows()
        ).totalCost
    }

    func space(_ step: MigrationPlan.Step, rows: Int, store: String, backup: Bool) -> (work: SpaceCheck, name: String) {
        let sql = predictedSQL(step)
        let work = SpaceCheck.Work.alterInPlace(
            backup: backup, rewritesRows: sql.rewritesRows(methods: sql.tableMethods()), rebuilds: sql.rebuildsTables())
        return (SpaceCheck(work, store: store), step.versions)
    }

    func statements(
        _ step: MigrationPlan.Step, first: Bool, on connection: StoreConnection, store: PersistentStore,
        layouts: (source: StoreLayout, destination: StoreLayout), options: MigrationOptions
    ) throws -> StepStatements {
        let schema = first ? try connection.schemaObjects() : SchemaObjects(predictedFor: layouts.source)
        return LightweightSQL(inference: inference, source: layouts.source, destination: layouts.destination)
            .described(step, schema: schema)
    }

    func run(_ step: MigrationPlan.Step, store path: String, context: StepContext) throws -> MigrationReport {
        try InPlaceMigration.run(store: path, from: step.source, to: step.destination, context: context)
    }
}

/// A mapping step: the mapping models' passes into a new store, swapped in (``MappingMigration``).
struct MappingWork: StepWork {
    let models: [MappingModel]

    func planCost(_ step: MigrationPlan.Step, rows: Int, bytes: Int, backup: Bool, policies: PolicyRegistry) -> Double {
        // Spread evenly over the source's entities: the step's own budget, made when it starts, knows its counts.
        let entities = step.source.model.entities.map(\.name)
        let each = rows / max(entities.count, 1)
        return StageCost.mappingStep(
            models, sourceRows: Dictionary(entities.map { ($0, each) }, uniquingKeysWith: { a, _ in a }),
            createsOwnRelationships: policies.createsOwnRelationships
        ).totalCost
    }

    func space(_ step: MigrationPlan.Step, rows: Int, store: String, backup: Bool) -> (work: SpaceCheck, name: String) {
        (SpaceCheck(.newStore(rows: rows), store: store), step.versions)
    }

    func statements(
        _ step: MigrationPlan.Step, first: Bool, on connection: StoreConnection, store: PersistentStore,
        layouts: (source: StoreLayout, destination: StoreLayout), options: MigrationOptions
    ) throws -> StepStatements {
        try MappingStepSQL(connection: connection, store: store, step: step, layouts: layouts, options: options)
            .described(models)
    }

    func run(_ step: MigrationPlan.Step, store path: String, context: StepContext) throws -> MigrationReport {
        try MappingMigration.run(
            store: path, from: step.source, to: step.destination, mappings: models, context: context)
    }
}

/// A staged migration's handler: the app's Swift code on the store at one version, in one
/// transaction (``HandlerMigration``).
struct HandlerWork: StepWork {
    let handler: StageHandlerStep

    func planCost(_ step: MigrationPlan.Step, rows: Int, bytes: Int, backup: Bool, policies: PolicyRegistry) -> Double {
        StageCost.handlerStep(rows: rows, bytes: bytes, backup: backup).totalCost
    }

    func space(_ step: MigrationPlan.Step, rows: Int, store: String, backup: Bool) -> (work: SpaceCheck, name: String) {
        // What the handler writes is unknown: it may touch every row, so its journal may hold the whole store.
        (SpaceCheck(.alterInPlace(backup: backup, rewritesRows: true), store: store), handler.name)
    }

    func statements(
        _ step: MigrationPlan.Step, first: Bool, on connection: StoreConnection, store: PersistentStore,
        layouts: (source: StoreLayout, destination: StoreLayout), options: MigrationOptions
    ) throws -> StepStatements {
        StepStatements(
            source: step.source.name, destination: step.destination.name,
            summary: "the app's \(handler.name), in one transaction on the store at \(handler.version.name)",
            parts: [
                StepStatements.Part(
                    title: "handler",
                    notes: ["Swift code of the app: its statements are the objects it fetches, changes and saves"])
            ])
    }

    func run(_ step: MigrationPlan.Step, store path: String, context: StepContext) throws -> MigrationReport {
        try HandlerMigration.run(handler, store: path, context: context)
    }
}
