import ArgumentParser
import Foundation
import MigrationEngine

/// `chrysalis mapping FILE`: a mapping model's entity mappings, in execution order, with their
/// property mappings' value expressions.
struct MappingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapping",
        abstract: "Show a mapping model's entity mappings in execution order, with their value expressions.",
        discussion: """
        FILE is an Xcode mapping model (Name.xcmappingmodel) or a Chrysalis mapping file \
        (Name.mapping.yaml). Only live entity mappings are shown (Xcode keeps orphans), in the \
        order they run. With --model, the mapping is checked against the bundle's two versions \
        and Core Data's inferred expressions are filled in.

        Examples:
          chrysalis mapping Model1_to_Model2.xcmappingmodel
          chrysalis mapping BookStore3To4.mapping.yaml --model BookStore.xcdatamodeld --json
        """
    )

    @Argument(help: "The .xcmappingmodel or .mapping.yaml file.", completion: .file())
    var file: String

    @Option(help: "The model bundle to check the mapping against and infer defaults from.", completion: .directory)
    var model: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        do {
            var mapping = try MappingFile.read(file)
            if let model {
                let bundle = try ModelPath.load(model).requireBundle()
                guard let source = bundle.version(named: mapping.sourceVersion), let destination = bundle.version(named: mapping.destinationVersion) else {
                    throw MappingError(file: file, problem: "maps \(mapping.sourceVersion) → \(mapping.destinationVersion), but \(bundle.name) has versions \(bundle.versions.map(\.name).joined(separator: ", "))",
                                       fix: "give the bundle this mapping was made for")
                }
                mapping = try mapping.resolved(source: source.model, destination: destination.model)
            }
            let report = MappingReport(mapping, resolved: model != nil)
            print(json ? try report.json() : report.text(), terminator: "")
        } catch {
            fail(error)
        }
    }
}

/// Reads either mapping format by its extension.
enum MappingFile {
    static func read(_ path: String) throws -> MappingModel {
        let url = URL(fileURLWithPath: path)
        if url.pathExtension == "yaml" || url.pathExtension == "yml" { return try MappingYAMLReader.read(at: url) }
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
    private var resolved = false

    enum CodingKeys: String, CodingKey { case name, source, destination, entityMappings }

    init(_ mapping: MappingModel, resolved: Bool) {
        self.resolved = resolved
        name = mapping.name
        source = mapping.sourceVersion
        destination = mapping.destinationVersion
        entityMappings = mapping.entityMappings.enumerated().map { index, entity in
            Entity(order: index + 1, name: entity.name, kind: entity.kind.rawValue, source: entity.sourceEntity,
                   destination: entity.destinationEntity, policy: entity.policyName, filter: entity.filter?.description,
                   userInfo: entity.userInfo,
                   attributes: entity.attributeMappings.map { Property(name: $0.name, expression: $0.expression?.description) },
                   relationships: entity.relationshipMappings.map { Property(name: $0.name, expression: $0.expression?.description) })
        }
    }

    func json() throws -> String { try JSONOutput.encode(self) }

    func text() -> String {
        var lines = ["\(name): \(source) → \(destination), \(entityMappings.count) entity mapping\(entityMappings.count == 1 ? "" : "s") in execution order"]
        for entity in entityMappings {
            lines.append("")
            var head = "\(entity.order). \(entity.name)  [\(entity.kind)]  \(entity.source ?? "∅") → \(entity.destination ?? "∅")"
            if let policy = entity.policy { head += "  policy \(policy)" }
            lines.append(head)
            if let filter = entity.filter { lines.append("     filter    \(filter)") }
            if !entity.userInfo.isEmpty {
                lines.append("     userInfo  " + entity.userInfo.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
            }
            let width = max((entity.attributes + entity.relationships).map(\.name.count).max() ?? 0, 4)
            for property in entity.attributes + entity.relationships {
                let arrow = entity.relationships.contains { $0.name == property.name } ? "⇢" : "="
                lines.append("     \(property.name.padding(toLength: width, withPad: " ", startingAt: 0)) \(arrow) \(property.expression ?? (resolved ? "(left unset)" : "(inferred from the models)"))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
