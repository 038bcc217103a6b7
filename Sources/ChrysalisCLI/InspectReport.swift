import Foundation
import SQLiteStore

/// What `chrysalis inspect` prints, as text or JSON.
struct InspectReport: Encodable {
    struct Entity: Encodable {
        var name: String
        var hash: String
        var rows: Int
    }

    struct File: Encodable {
        var size: Int64
        var journalMode: String
        var pageSize: Int
        var pageCount: Int
        var wal: String?
        var shm: String?
    }

    var path: String
    var uuid: String
    var frameworkVersion: Int?
    var identifiers: [String]
    var entities: [Entity]
    var matchedVersion: String?
    /// Versions with the matched version's hashes, which Core Data takes for it.
    var identicalVersions: [String]
    var modelSource: String?
    var compatibleWithCurrent: Bool
    var currentVersion: String?
    var nearestVersion: String?
    var differingEntities: [String]
    var cachedModelReproducesHashes: Bool?
    var digest: String?
    var checksum: String?
    var file: File
    /// What an interrupted migration left for the next run to finish or undo.
    var interruptedMigration: String?
    private var bundleName: String?

    enum CodingKeys: String, CodingKey {
        case path, uuid, frameworkVersion, identifiers, entities, matchedVersion, identicalVersions, modelSource,
            compatibleWithCurrent
        case currentVersion, nearestVersion, differingEntities, cachedModelReproducesHashes, digest, checksum, file,
            interruptedMigration
    }

    init(_ inspection: StoreInspection, bundleName: String?) {
        path = inspection.path
        uuid = inspection.metadata.uuid
        frameworkVersion = inspection.metadata.frameworkVersion
        identifiers = inspection.metadata.versionIdentifiers
        entities = inspection.entities.map { Entity(name: $0.name, hash: $0.hash.base64EncodedString(), rows: $0.rows) }
        matchedVersion = inspection.match.matchedVersion
        identicalVersions = inspection.match.identicalVersions
        modelSource = inspection.match.source?.rawValue
        compatibleWithCurrent = inspection.compatibleWithCurrent
        currentVersion = inspection.currentVersion
        nearestVersion = inspection.match.nearestVersion
        differingEntities = inspection.match.differingEntities
        cachedModelReproducesHashes = inspection.match.cachedModelReproducesHashes
        digest = inspection.metadata.versionHashesDigest
        checksum = inspection.metadata.versionChecksum
        file = File(
            size: inspection.fileSize, journalMode: inspection.journalMode, pageSize: inspection.pageSize,
            pageCount: inspection.pageCount, wal: inspection.walPath, shm: inspection.shmPath)
        self.bundleName = bundleName
    }

    // Optional keys are written as null rather than left out, so every report has the same shape.
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(uuid, forKey: .uuid)
        try container.encode(frameworkVersion, forKey: .frameworkVersion)
        try container.encode(identifiers, forKey: .identifiers)
        try container.encode(entities, forKey: .entities)
        try container.encode(matchedVersion, forKey: .matchedVersion)
        try container.encode(identicalVersions, forKey: .identicalVersions)
        try container.encode(modelSource, forKey: .modelSource)
        try container.encode(compatibleWithCurrent, forKey: .compatibleWithCurrent)
        try container.encode(currentVersion, forKey: .currentVersion)
        try container.encode(nearestVersion, forKey: .nearestVersion)
        try container.encode(differingEntities, forKey: .differingEntities)
        try container.encode(cachedModelReproducesHashes, forKey: .cachedModelReproducesHashes)
        try container.encode(digest, forKey: .digest)
        try container.encode(checksum, forKey: .checksum)
        try container.encode(file, forKey: .file)
    }

    func json() throws -> String { try JSONOutput.encode(self) }

    func text() -> String {
        var lines = [
            "Store       \(path)",
            "File        \(file.size) bytes, \(file.pageCount) pages of \(file.pageSize), journal \(file.journalMode)",
        ]
        if let wal = file.wal { lines.append("            -wal \(wal)") }
        if let shm = file.shm { lines.append("            -shm \(shm)") }
        lines.append("UUID        \(uuid)")
        lines.append(
            "Framework   \(frameworkVersion.map(String.init) ?? "unknown")    identifiers \(identifiers.isEmpty ? "(none)" : identifiers.map { "\"\($0)\"" }.joined(separator: ", "))"
        )
        lines.append("Version     \(versionLine())")
        if !identicalVersions.isEmpty {
            lines.append(
                "            same hashes as \(identicalVersions.joined(separator: ", ")): one model to Core Data; shown by the identifier the store recorded"
            )
        }
        if let interruptedMigration { lines.append("Warning     \(interruptedMigration)") }
        if !differingEntities.isEmpty {
            lines.append(
                "            entities differing from \(nearestVersion ?? "it"): \(differingEntities.joined(separator: ", "))"
            )
        }
        lines.append("")
        let width = max(entities.map(\.name.count).max() ?? 0, 6)
        let rowsWidth = max(entities.map { String($0.rows).count }.max() ?? 0, 4)
        lines.append(
            "Entity".padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: rowsWidth - 4) + "Rows  Hash")
        for entity in entities {
            let rows = String(entity.rows)
            lines.append(
                entity.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                    + String(repeating: " ", count: rowsWidth - rows.count) + rows + "  " + entity.hash)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func versionLine() -> String {
        if let matchedVersion {
            let state =
                compatibleWithCurrent
                ? "the current version; no migration needed"
                : "current is \(currentVersion ?? "?"); a migration is needed"
            return "\(matchedVersion) of \(bundleName ?? "the bundle") (\(state))"
        }
        let own = modelSource == "modelcache" ? PersistentStore.cachedModelName : "no model"
        let reproduced = cachedModelReproducesHashes == false ? ", which does NOT reproduce its hashes" : ""
        guard let bundleName else { return "\(own)\(reproduced); give --model to match it against a bundle" }
        return
            """
            no version of \(bundleName) has these hashes; using \(own)\(reproduced); nearest is \
            \(nearestVersion ?? "none")
            """
    }
}
