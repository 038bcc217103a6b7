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
    /// The same few rows as they were and as they are: what step mode shows a presenter.
    public var samples: [Sample] = []

    /// One source object and the destination object made from it, value by value.
    public struct Sample: Sendable, Equatable {
        /// `Book 3` (nil when the mapping made it from no source object) and `Publication 3`.
        public var source: String?, destination: String
        /// Each destination value, with the source's value of the same name.
        public var values: [Value]
        /// The source's values that no destination value of the same name shows (`author
        /// "John Doe"` where a policy made `firstName` and `lastName` of it), as `name value`.
        public var sourceOnly: [String] = []

        /// A value before and after.
        public struct Value: Sendable, Equatable {
            /// The destination attribute's name.
            public var name: String
            /// The source's value of that name (nil: the source has none).
            public var before: String?
            /// The destination's value, as text.
            public var after: String
            /// What the value expression read from the source, when it reads keys other than
            /// the value's own name (`status "pending"` for `statusKey: $source.status`).
            public var read: String?
            /// Whether the mapping changed it (or made it new).
            public var changed: Bool { before != after || read != nil }

            /// A value before and after.
            ///
            /// - Parameters:
            ///   - name: The destination attribute's name.
            ///   - before: The source's value of that name, as text; `nil` when the source has
            ///     none.
            ///   - after: The destination's value, as text.
            public init(name: String, before: String?, after: String) {
                (self.name, self.before, self.after) = (name, before, after)
            }
        }

        /// A sample.
        ///
        /// - Parameters:
        ///   - source: The source object (`Book 3`); `nil` when the mapping made the destination
        ///     from none.
        ///   - destination: The destination object (`Publication 3`).
        ///   - values: Each destination value with the source's value of the same name.
        ///   - sourceOnly: The source's values no destination value of the same name shows.
        public init(source: String?, destination: String, values: [Value], sourceOnly: [String] = []) {
            (self.source, self.destination, self.values, self.sourceOnly) = (source, destination, values, sourceOnly)
        }
    }

    /// A step report.
    ///
    /// - Parameters:
    ///   - pass: The mapping model running.
    ///   - entityMapping: The entity mapping that finished a stage.
    ///   - index: Its 1-based position in the mapping order.
    ///   - count: How many entity mappings there are.
    ///   - stage: The stage it finished.
    ///   - rowsCreated: The destination instances it has created so far.
    ///   - sampleRows: A few of them, as `name=value` lines.
    ///   - next: The entity mapping that runs next, if any.
    ///   - samples: The same rows as they were and as they are.
    public init(
        pass: String, entityMapping: String, index: Int, count: Int, stage: MigrationProgress.Stage, rowsCreated: Int,
        sampleRows: [String], next: String?,
        samples: [Sample] = []
    ) {
        self.pass = pass
        self.entityMapping = entityMapping
        self.index = index
        self.count = count
        self.stage = stage
        self.rowsCreated = rowsCreated
        self.sampleRows = sampleRows
        self.next = next
        self.samples = samples
    }
}

extension MigrationManager {
    /// The report of `mapping` after `stage`: counts, and a few destination rows with the source
    /// rows they were made from.
    func stepReport(_ mapping: EntityMapping, index: Int, stage: MigrationProgress.Stage, next: String?) throws
        -> StepReport
    {
        // As many as a pane of a large terminal shows; a smaller one says how many more.
        let pairs = try stores.associations.page(mapping: index, after: 0, limit: 8)
        var rows: [String] = [], samples: [StepReport.Sample] = []
        let expressions = Dictionary(
            mapping.attributeMappings.compactMap { property in property.expression.map { (property.name, $0) } },
            uniquingKeysWith: { first, _ in first })
        for pair in pairs {
            guard let object = try stores.destinationReader.object(pair.destination) else { continue }
            let values = object.values.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.short($0.value))" }
            let links = object.toOne.sorted { $0.key < $1.key }.map { "\($0.key)→\($0.value.primaryKey)" }
            rows.append("\(object.entity) \(object.id.primaryKey): " + (values + links).joined(separator: ", "))
            let source = try pair.source.flatMap { try stores.sourceReader.object($0) }
            samples.append(Self.sample(of: object, from: source, expressions: expressions))
        }
        return StepReport(
            pass: mappingModel.name, entityMapping: mapping.name, index: index + 1,
            count: mappingModel.entityMappings.count,
            stage: stage, rowsCreated: try stores.associations.count(mapping: index), sampleRows: rows, next: next,
            samples: samples)
    }

    /// `object` beside `source`, value by value: each value with the source's of its name, and
    /// what its expression read when that is another key; then the source's values no
    /// destination value shows, which a policy or an expression turned into others.
    private static func sample(of object: StoredObject, from source: StoredObject?, expressions: [String: Expression])
        -> StepReport.Sample
    {
        var shown: Set<String> = []
        let values = object.values.sorted { $0.key < $1.key }.map { key, value -> StepReport.Sample.Value in
            var item = StepReport.Sample.Value(
                name: key, before: source?.values[key].map(short), after: short(value))
            shown.insert(key)
            let keys = (expressions[key]?.sourceKeys ?? []).subtracting(["*", key]).sorted()
            let read = keys.compactMap { name in source?.values[name].map { "\(name) \(short($0))" } }
            if !read.isEmpty {
                item.read = read.joined(separator: ", ")
                shown.formUnion(keys)
            }
            return item
        }
        var sample = StepReport.Sample(
            source: source.map { "\($0.entity) \($0.id.primaryKey)" },
            destination: "\(object.entity) \(object.id.primaryKey)", values: values)
        sample.sourceOnly = (source?.values ?? [:]).filter { !shown.contains($0.key) }.sorted { $0.key < $1.key }
            .map { "\($0.key) \(short($0.value))" }
        return sample
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
