import Foundation
import ObjectModel
import SQLiteStore

/// The chain of steps from a store's version to a target version, one per consecutive pair,
/// each with its kind and what a person should know before running it. Planning reads the
/// store's metadata (and counts the rows of entities a step removes); it never writes.
public struct MigrationPlan: Sendable {
    /// How one step is done.
    public enum Kind: Sendable {
        /// Inferred, in place with SQL.
        case lightweight(InferredMapping)
        /// Mapping models, run in order as passes into one destination.
        case mapping([MappingModel])
        /// Inferred, but through the three-stage manager (when the SQL cannot do it in place).
        case inferredCopy(MappingModel)

        /// `lightweight`, `mapping` or `inferred copy`.
        public var name: String {
            switch self {
            case .lightweight: return "lightweight"
            case .mapping: return "mapping"
            case .inferredCopy: return "inferred copy"
            }
        }
    }

    /// One step.
    public struct Step: Sendable {
        /// The version migrated from.
        public var source: ModelBundle.Version
        /// The version migrated to.
        public var destination: ModelBundle.Version
        /// How.
        public var kind: Kind
        /// Data dropped, renames, required values without defaults, tables rewritten.
        public var findings: [String]
    }

    /// The store's version.
    public var storeVersion: String
    /// The version the plan ends at.
    public var targetVersion: String
    /// The steps, in order; empty when the store is already there.
    public var steps: [Step]
    /// Mapping models that fit no step (a folder of mappings usually holds older ones too).
    public var unusedMappings: [String] = []

    /// The error for mappings someone named on purpose that the plan does not use.
    public func unusedError(_ names: [String]) -> MigrationError? {
        let unused = names.filter(unusedMappings.contains)
        guard !unused.isEmpty else { return nil }
        let route = steps.map { "\($0.source.name) → \($0.destination.name)" }.joined(separator: ", ")
        return MigrationError(.wrongModel, "mapping \(unused.joined(separator: ", ")) fits no step from \(storeVersion) to \(targetVersion) (steps: \(route.isEmpty ? "none" : route))",
                              fix: "leave it out, or choose the target with --to")
    }

    /// Plans the migration of the store at `path` to `target` (default: the bundle's current
    /// version) with the given mapping models available.
    public static func make(store path: String, bundle: ModelBundle, mappings: [MappingModel] = [], to target: String? = nil) throws -> MigrationPlan {
        let store = try PersistentStore.open(at: path)
        let metadata = try store.metadata()
        // Versions that differ only in identifiers are compatible: start from the latest of them.
        let targetIndex = target.flatMap { name in bundle.versions.firstIndex { $0.name == name } } ?? bundle.versions.firstIndex { $0.name == bundle.currentVersionName }
        let compatible = bundle.versions.enumerated().filter { VersionHash.entityHashes(of: $0.element.model) == metadata.versionHashes }
        guard let start = (compatible.last { targetIndex == nil || $0.offset <= targetIndex! } ?? compatible.first)?.element else {
            let nearest = bundle.nearestVersion(toHashes: metadata.versionHashes)
            throw MigrationError(.wrongModel, "\(path) is not at any version of \(bundle.name)" +
                                 (nearest.map { " (nearest: \($0.version.name), differing entities \($0.differingEntities.joined(separator: ", ")))" } ?? ""),
                                 fix: "give the model bundle the store was made with; `chrysalis inspect \(path)` shows its own model")
        }
        let targetName = target ?? bundle.currentVersionName
        guard let end = bundle.version(named: targetName) else {
            throw MigrationError(.notFound, "\(bundle.name) has no version \(targetName)", fix: "use one of: \(bundle.versions.map(\.name).joined(separator: ", "))")
        }
        let chain = try versionChain(from: start, to: end, bundle: bundle, mappings: mappings)
        let pairs = Set(zip(chain, chain.dropFirst()).map { "\($0.name)\u{0}\($1.name)" })
        // A mapping to a version the store has already reached is not unused but done: the same
        // command, run again after an interrupted chain, must carry on, not fail on it.
        let startIndex = bundle.versions.firstIndex { $0.name == start.name } ?? 0
        let unused = mappings.filter { mapping in
            !pairs.contains("\(mapping.sourceVersion)\u{0}\(mapping.destinationVersion)")
                && (bundle.versions.firstIndex { $0.name == mapping.destinationVersion }.map { $0 > startIndex } ?? true)
        }
        var steps: [Step] = []
        for (index, (source, destination)) in zip(chain, chain.dropFirst()).enumerated() {
            let found = mappings.filter { $0.sourceVersion == source.name && $0.destinationVersion == destination.name }
            let inference = InferredMapping(from: source, to: destination)
            let kind: Kind
            if !found.isEmpty {
                kind = .mapping(found)
            } else if inference.isInferable {
                kind = .lightweight(inference)
            } else {
                throw MigrationError(.wrongModel, "\(source.name) → \(destination.name) needs a mapping model: " + inference.blockers.map(\.description).joined(separator: "; "),
                                     fix: "write a mapping for \(source.name) → \(destination.name) and pass it with --mappings")
            }
            // Rows are counted (a scan of each table) only to say how many a removed entity loses.
            let rows = index == 0 && !inference.removedEntities.isEmpty ? try store.rowCounts(model: start.model) : nil
            steps.append(Step(source: source, destination: destination, kind: kind,
                              findings: findings(inference, kind: kind, rows: rows)))
        }
        return MigrationPlan(storeVersion: start.name, targetVersion: end.name, steps: steps, unusedMappings: unused.map(\.name))
    }

    /// The versions from `start` to `end`: following mapping models where they lead, else the
    /// next version by name.
    static func versionChain(from start: ModelBundle.Version, to end: ModelBundle.Version, bundle: ModelBundle,
                             mappings: [MappingModel]) throws -> [ModelBundle.Version] {
        guard let startIndex = bundle.versions.firstIndex(of: start), let endIndex = bundle.versions.firstIndex(of: end) else { return [start] }
        guard startIndex <= endIndex else {
            throw MigrationError(.wrongModel, "the store is at \(start.name), newer than \(end.name); Chrysalis does not migrate backwards",
                                 fix: "choose a target after \(start.name) with --to")
        }
        var chain = [start]
        var current = start
        while current != end {
            let index = bundle.versions.firstIndex(of: current)!
            let next = mappings.first { $0.sourceVersion == current.name }.flatMap { mapping in bundle.version(named: mapping.destinationVersion) }
                .flatMap { candidate -> ModelBundle.Version? in
                    guard let at = bundle.versions.firstIndex(of: candidate), at > index, at <= endIndex else { return nil }
                    return candidate
                } ?? bundle.versions[index + 1]
            chain.append(next)
            current = next
        }
        return chain
    }

    private static func findings(_ inference: InferredMapping, kind: Kind, rows: [String: Int]?) -> [String] {
        var findings: [String] = []
        // Inferred steps drop what the destination lacks; with a mapping model, the mapping decides.
        let dropped: String
        if case .mapping = kind { dropped = "not in \(inference.destinationVersion) (the mapping model decides what becomes of it)" }
        else { dropped = "data dropped" }
        for entity in inference.removedEntities {
            let count = rows?[entity].map { " (\($0) rows)" } ?? ""
            if rows?[entity] != 0 { findings.append("\(dropped): entity \(entity) is removed\(count)") }
        }
        for change in inference.changes where change.description.hasSuffix(" removed") && !change.description.hasPrefix("entity ") {
            findings.append("\(dropped): \(change.description)")
        }
        for change in inference.changes where change.description.contains("renamed") { findings.append("rename: \(change.description)") }
        for change in inference.changes where change.description.contains("becomes required") { findings.append("required: \(change.description)") }
        if case .lightweight = kind {
            let methods = LightweightMigration.tableMethods(inference: inference, source: StoreLayout(model: inference.sourceModel),
                                                            destination: StoreLayout(model: inference.destinationModel))
            let rebuilt = methods.filter { $0.value == .rebuilt }.keys.sorted()
            if !rebuilt.isEmpty { findings.append("rewrites whole tables (their storage changes): \(rebuilt.joined(separator: ", "))") }
            findings += inference.blockers.map { "needs a mapping model: \($0.description)" }
        } else {
            findings += inference.blockers.map { "not inferable (handled by the mapping model): \($0.description)" }
        }
        if case .mapping = kind { findings.append("rewrites every table into a new store (mapping models)") }
        return findings
    }
}
