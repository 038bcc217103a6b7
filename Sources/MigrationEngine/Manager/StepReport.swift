import SQLiteStore

/// What one entity mapping did in one stage, for step mode: the engine stops after each entity
/// mapping of each stage and hands this to whoever is watching.
public struct StepReport: Sendable, Equatable {
    /// The mapping model (pass) running.
    public var pass: String
    /// The entity mapping that just finished a stage.
    public var entityMapping: String
    /// Its 1-based position in the mapping order, and how many there are.
    public var index: Int, count: Int
    /// The stage it finished.
    public var stage: MigrationProgress.Stage
    /// Destination instances the mapping has created so far.
    public var rowsCreated: Int
    /// A few of them, as `name=value` lines.
    public var sampleRows: [String]
    /// The entity mapping that runs next (in this stage or the next), if any.
    public var next: String?

    /// A step report.
    public init(pass: String, entityMapping: String, index: Int, count: Int, stage: MigrationProgress.Stage, rowsCreated: Int, sampleRows: [String], next: String?) {
        self.pass = pass
        self.entityMapping = entityMapping
        self.index = index
        self.count = count
        self.stage = stage
        self.rowsCreated = rowsCreated
        self.sampleRows = sampleRows
        self.next = next
    }
}

extension MigrationManager {
    /// The report of `mapping` after `stage`: counts and a few destination rows.
    func stepReport(_ mapping: EntityMapping, index: Int, stage: MigrationProgress.Stage, next: String?) throws -> StepReport {
        let pairs = try pass.associations.page(mapping: index, after: 0, limit: 3)
        let samples = try pairs.compactMap { pair -> String? in
            guard let object = try pass.destinationReader.object(pair.destination) else { return nil }
            let values = object.values.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.short($0.value))" }
            let links = object.toOne.sorted { $0.key < $1.key }.map { "\($0.key)→\($0.value.primaryKey)" }
            return "\(object.entity) \(object.id.primaryKey): " + (values + links).joined(separator: ", ")
        }
        return StepReport(pass: mappingModel.name, entityMapping: mapping.name, index: index + 1, count: mappingModel.entityMappings.count,
                          stage: stage, rowsCreated: try pass.associations.count(mapping: index), sampleRows: samples, next: next)
    }

    private static func short(_ value: StoreValue) -> String {
        switch value {
        case .null: return "nil"
        case .string(let text): return "\"" + (text.count > 24 ? String(text.prefix(21)) + "..." : text) + "\""
        case .integer(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return flag ? "YES" : "NO"
        case .data(let data): return "<\(data.count) bytes>"
        default: return "\(value)"
        }
    }
}
