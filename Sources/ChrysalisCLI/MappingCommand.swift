import ArgumentParser
import Foundation
import MigrationEngine
import ObjectModel

/// `chrysalis mapping FILE`: a mapping model's entity mappings, in execution order, with their
/// property mappings' value expressions.
struct MappingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapping",
        abstract: "Show a mapping model's entity mappings in execution order, with their value expressions.",
        discussion: """
            FILE is an Xcode mapping model (Name.xcmappingmodel), a compiled one from an app bundle \
            (Name.cdm) or a Chrysalis mapping file (Name.mapping.yaml). Only live entity mappings are \
            shown (Xcode keeps orphans), in the order they run. With --model, the mapping is checked \
            against the bundle's two versions and Core Data's inferred expressions are filled in; a \
            .cdm names no versions, so they are found by the entity hashes it stores.

            \(ExitStatus.help("mapping"))

            Examples:
              chrysalis mapping Model1_to_Model2.xcmappingmodel
              chrysalis mapping V2toV3.cdm --model SampleModel.momd
              chrysalis mapping BookStore3To4.mapping.yaml --model BookStore.xcdatamodeld --json
            """
    )

    @Argument(help: "The .xcmappingmodel, .cdm or .mapping.yaml file.", completion: .file())
    var file: String

    @Option(help: "The model bundle to check the mapping against and infer defaults from.", completion: .directory)
    var model: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        do {
            var mapping = try MappingFile.read(file)
            let compiled = mapping.isCompiled
            var resolved = false
            let named = (mapping.sourceVersion, mapping.destinationVersion)
            if let model {
                (mapping, resolved) = try Self.check(mapping, against: try ModelPath.load(model), file: file)
            }
            // The names an Xcode mapping model keeps go stale when a version is renamed; its hashes do not.
            if !compiled, !json, named != (mapping.sourceVersion, mapping.destinationVersion) {
                StandardStreams.err(
                    """
                    note: \(mapping.name) names \(named.0) → \(named.1); Core Data finds a mapping model by its \
                    models' entity hashes, which are \(mapping.sourceVersion)'s → \(mapping.destinationVersion)'s\n
                    """)
            }
            // A compiled mapping's missing expressions are the compiler's verdict: left unset, not inferred.
            let report = MappingReport(mapping, resolved: resolved || compiled)
            print(json ? try report.json() : TerminalText.visible(report.text()), terminator: "")
        } catch {
            fail(error)
        }
    }

    /// `mapping` checked against `model`: a compiled mapping's versions found by its entity hashes
    /// first, then every default filled in; a `.momd` with only hashes can name the versions but
    /// not resolve the expressions (`resolved` is then false).
    static func check(_ mapping: MappingModel, against model: ModelPath, file: String) throws -> (
        MappingModel, resolved: Bool
    ) {
        var mapping = mapping
        if mapping.sourceEntityHashes != nil {
            let versions: [(name: String, hashes: [String: Data])]
            switch model {
            case .bundle(let bundle):
                versions = bundle.versions.map { ($0.name, VersionHash.entityHashes(of: $0.model)) }
            case .hashesOnly(let compiled):
                versions = compiled.versionNames.map { ($0, compiled.versionHashes[$0] ?? [:]) }
            }
            guard let named = mapping.resolvingVersions(among: versions) else {
                let made = mapping.isCompiled ? "was compiled for" : "was made from"
                throw MappingError(
                    file: file,
                    problem:
                        """
                        \(made) models whose entity hashes fit no version of the bundle (versions \
                        \(versions.map(\.name).joined(separator: ", "))), so Core Data would not use it
                        """,
                    fix:
                        """
                        give the bundle it was made for; if the models changed since, refresh them in Xcode \
                        (Editor ▸ Refresh Data Models) and recompile it
                        """
                )
            }
            mapping = named
            if case .hashesOnly = model { return (mapping, false) }
        }
        let bundle = try model.requireBundle()
        guard let source = bundle.version(named: mapping.sourceVersion),
            let destination = bundle.version(named: mapping.destinationVersion)
        else {
            throw MappingError(
                file: file,
                problem:
                    """
                    maps \(mapping.sourceVersion) → \(mapping.destinationVersion), but \(bundle.name) has versions \
                    \(bundle.versions.map(\.name).joined(separator: ", "))
                    """,
                fix: "give the bundle this mapping was made for")
        }
        return (try mapping.resolved(source: source.model, destination: destination.model), true)
    }
}

/// Reads any mapping format by its extension.
enum MappingFile {
    static func read(_ path: String) throws -> MappingModel {
        let url = URL(fileURLWithPath: path)
        if url.pathExtension == "yaml" || url.pathExtension == "yml" { return try MappingYAMLReader.read(at: url) }
        if url.pathExtension == "cdm" { return try CompiledMappingReader.read(at: url) }
        return try XCMappingReader.read(at: url)
    }
}

/// What `chrysalis mapping` prints.
struct MappingReport: Encodable {
    struct Property: Encodable {
        var name: String
        var expression: String?
    }

    struct Entity: Encodable {
        var order: Int
        var name: String
        var kind: String
        var source: String?
        var destination: String?
        var policy: String?
        var filter: String?
        var userInfo: [String: String]
        var attributes: [Property]
        var relationships: [Property]
    }

    var name: String
    var source: String
    var destination: String
    var entityMappings: [Entity]
    /// A compiled mapping's entity hashes (base64), which name its versions; absent otherwise.
    var sourceEntityHashes: [String: String]?
    var destinationEntityHashes: [String: String]?
    private var resolved = false

    enum CodingKeys: String, CodingKey {
        case name, source, destination, entityMappings, sourceEntityHashes, destinationEntityHashes
    }

    init(_ mapping: MappingModel, resolved: Bool) {
        self.resolved = resolved
        name = mapping.name
        source = mapping.sourceVersion
        destination = mapping.destinationVersion
        sourceEntityHashes = mapping.sourceEntityHashes?.mapValues { $0.base64EncodedString() }
        destinationEntityHashes = mapping.destinationEntityHashes?.mapValues { $0.base64EncodedString() }
        entityMappings = mapping.entityMappings.enumerated().map { index, entity in
            Entity(
                order: index + 1, name: entity.name, kind: entity.kind.rawValue, source: entity.sourceEntity,
                destination: entity.destinationEntity, policy: entity.policyName, filter: entity.filter?.description,
                userInfo: entity.userInfo,
                attributes: entity.attributeMappings.map {
                    Property(name: $0.name, expression: $0.expression?.description)
                },
                relationships: entity.relationshipMappings.map {
                    Property(name: $0.name, expression: $0.expression?.description)
                })
        }
    }

    func json() throws -> String { try JSONOutput.encode(self) }

    func text() -> String {
        let versions =
            source.isEmpty && destination.isEmpty
            ? "versions known by entity hashes only (give --model to name them)" : "\(source) → \(destination)"
        var lines = [
            """
            \(name): \(versions), \(entityMappings.count) entity mapping\(entityMappings.count == 1 ? "" : "s") in \
            execution order
            """
        ]
        for entity in entityMappings {
            lines.append("")
            var head =
                "\(entity.order). \(entity.name)  [\(entity.kind)]  \(entity.source ?? "∅") → \(entity.destination ?? "∅")"
            if let policy = entity.policy { head += "  policy \(policy)" }
            lines.append(head)
            if let filter = entity.filter { lines.append("     filter    \(filter)") }
            if !entity.userInfo.isEmpty {
                lines.append(
                    "     userInfo  "
                        + entity.userInfo.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                            separator: ", "))
            }
            let width = max((entity.attributes + entity.relationships).map(\.name.count).max() ?? 0, 4)
            for property in entity.attributes + entity.relationships {
                let arrow = entity.relationships.contains { $0.name == property.name } ? "⇢" : "="
                lines.append(
                    "     \(property.name.padding(toLength: width, withPad: " ", startingAt: 0)) \(arrow) \(property.expression ?? (resolved ? "(left unset)" : "(inferred from the models)"))"
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
