import Foundation
import ObjectModel
import SQLiteStore

/// What `chrysalis model` shows, as one value that prints as text or encodes as JSON.
struct ModelReport: Encodable {
    struct Version: Encodable {
        var name: String
        var identifiers: [String]?
        var checksum: String
        var digest: String?
        /// What Core Data would say of this version: warnings, or why no store can be at it.
        var findings: [Finding] = []
        var entities: [Entity]
    }

    /// One ``ModelFinding``: `verdict` is `refused` (Core Data refuses the model), `unsupported`
    /// (Chrysalis cannot make or migrate stores at it) or `warning` (Core Data loads it).
    struct Finding: Encodable {
        var verdict: String
        var entity: String
        var property: String?
        var message: String
        var fix: String
        var file: String
        var line: Int?

        init(_ finding: ModelFinding) {
            verdict = finding.problem.verdict.rawValue
            entity = finding.problem.entity
            property = finding.problem.property
            message = finding.problem.message
            fix = finding.problem.fix
            file = finding.file
            line = finding.line
        }

        /// `Entity.property: verdict: message`, for the text report.
        var sentence: String {
            let words =
                [
                    "refused": "Core Data refuses this model",
                    "unsupported": "Chrysalis cannot make or migrate stores at this version",
                ][verdict] ?? verdict
            return "\(entity)\(property.map { ".\($0)" } ?? ""): \(words): \(message). Fix: \(fix)"
        }
    }

    struct Entity: Encodable {
        var name: String
        var parent: String?
        var abstract: Bool?
        var hash: String
        var attributes: [Attribute]?
        var relationships: [Relationship]?

        enum CodingKeys: String, CodingKey { case name, parent, abstract, hash, attributes, relationships }

        // `parent` is written as null rather than left out: the shape stays the same for every entity.
        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(parent, forKey: .parent)
            try container.encodeIfPresent(abstract, forKey: .abstract)
            try container.encode(hash, forKey: .hash)
            try container.encodeIfPresent(attributes, forKey: .attributes)
            try container.encodeIfPresent(relationships, forKey: .relationships)
        }
    }

    struct Attribute: Encodable {
        var name, type: String
        var optional, transient: Bool
        var defaultValue, renamingIdentifier, derivation: String?
    }

    struct Relationship: Encodable {
        var name, destination: String
        var inverse: String?
        var toMany, ordered, optional, transient: Bool
        var minCount, maxCount: Int
        var deleteRule: String
        var renamingIdentifier: String?
    }

    var bundle: String
    var current: String
    /// What was found in the bundle itself (a current version it does not name).
    var findings: [Finding] = []
    var versions: [Version]

    enum CodingKeys: String, CodingKey { case current, findings, versions }

    init(_ bundle: ModelBundle) {
        self.bundle = bundle.name
        current = bundle.currentVersionName
        findings = bundle.findings.map(Finding.init)
        versions = bundle.versions.map { version in
            let model = version.model
            let hashes = version.entityHashes
            return Version(
                name: version.name, identifiers: model.versionIdentifiers,
                checksum: VersionHash.versionChecksum(of: model), digest: VersionHash.versionHashesDigest(of: model),
                findings: (version.findings + version.layoutFindings).map(Finding.init),
                entities: model.entities.map { entity in
                    Entity(
                        name: entity.name, parent: entity.parentName, abstract: entity.isAbstract,
                        hash: hashes[entity.name]?.base64EncodedString() ?? "",
                        attributes: entity.attributes.map(Self.attribute),
                        relationships: entity.relationships.map(Self.relationship))
                })
        }
    }

    /// A compiled bundle knows only hashes and checksums.
    init(_ compiled: CompiledModelBundle) {
        bundle = compiled.name
        current = compiled.currentVersionName
        versions = compiled.versionNames.map { name in
            let hashes = compiled.versionHashes[name] ?? [:]
            return Version(
                name: name, identifiers: nil, checksum: compiled.versionChecksums[name] ?? "", digest: nil,
                entities: hashes.keys.sorted(by: VersionHash.precedesInUTF16).map {
                    Entity(name: $0, hash: hashes[$0]?.base64EncodedString() ?? "")
                })
        }
    }

    private static func attribute(_ a: AttributeDescription) -> Attribute {
        Attribute(
            name: a.name, type: a.attributeType.displayName, optional: a.isOptional, transient: a.isTransient,
            defaultValue: a.defaultValueString, renamingIdentifier: a.renamingIdentifier,
            derivation: a.derivationExpression)
    }

    private static func relationship(_ r: RelationshipDescription) -> Relationship {
        Relationship(
            name: r.name, destination: r.destinationEntityName, inverse: r.inverseName, toMany: r.isToMany,
            ordered: r.isOrdered, optional: r.isOptional, transient: r.isTransient, minCount: r.minCount,
            maxCount: r.maxCount, deleteRule: r.deleteRule.rawValue, renamingIdentifier: r.renamingIdentifier)
    }

    func json() throws -> String { try JSONOutput.encode(self) }
}
