import ObjectModel

extension ModelReport {
    /// The report as aligned plain text: versions first, then each version's entities.
    func text() -> String {
        var lines = ["\(bundle): \(versions.count) version\(versions.count == 1 ? "" : "s"), current \(current)", ""]
        for version in versions {
            var notes = version.name == current ? ["current"] : []
            let stopping = version.findings.filter { $0.verdict != "warning" }.count,
                warnings = version.findings.count - stopping
            if let first = version.findings.first(where: { $0.verdict != "warning" }) {
                notes.append(
                    first.verdict == "refused" ? "Core Data refuses it" : "no store can be made or migrated here")
            }
            if warnings > 0 { notes.append("\(warnings) warning\(warnings == 1 ? "" : "s")") }
            lines.append(
                "\(version.name == current ? "* " : "  ")\(version.name)\(notes.isEmpty ? "" : "  (\(notes.joined(separator: "; ")))")"
            )
        }
        // Findings come before the entities, so a long history does not bury them; one that
        // several versions share is said once, with the runs of versions that have it.
        var sentences: [String] = [], holders: [String: [Int]] = [:]
        for (index, version) in versions.enumerated() {
            for sentence in version.findings.map(\.sentence) {
                if holders[sentence] == nil { sentences.append(sentence) }
                holders[sentence, default: []].append(index)
            }
        }
        let found =
            // A bundle's own finding names the bundle already (`H: warning: …`).
            findings.map(\.sentence) + sentences.map { "\(runs(of: holders[$0] ?? [])): \($0)" }
        if !found.isEmpty { lines += ["", "Findings:"] + found.map { "  " + $0 } }
        if versions.allSatisfy({ $0.identifiers == nil }) {
            lines += [
                "", "A compiled bundle holds hashes only; give its .xcdatamodeld to see entities and properties.",
            ]
        }
        for version in versions { lines += entityLines(of: version) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A version's section: its identifiers, checksum and digest, then each entity with its
    /// attributes and relationships, aligned.
    private func entityLines(of version: Version) -> [String] {
        var lines = ["", "── \(version.name) " + String(repeating: "─", count: max(3, 60 - version.name.count))]
        if let identifiers = version.identifiers {
            lines.append("identifiers  \(identifiers.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        if !version.checksum.isEmpty { lines.append("checksum     \(version.checksum)") }
        if let digest = version.digest { lines.append("digest       \(digest)") }
        for entity in version.entities {
            lines.append("")
            var title = entity.name
            if let parent = entity.parent { title += " : \(parent)" }
            if entity.abstract == true { title += " (abstract)" }
            lines.append("\(title)  \(entity.hash)")
            let width = max(
                ((entity.attributes ?? []).map(\.name) + (entity.relationships ?? []).map(\.name)).map(\.count).max()
                    ?? 0, 8)
            lines += (entity.attributes ?? []).map { line(for: $0, width: width) }
            lines += (entity.relationships ?? []).map { line(for: $0, width: width) }
        }
        return lines
    }

    /// `  name      Type            optional, default 0`.
    private func line(for attribute: Attribute, width: Int) -> String {
        var notes = [attribute.optional ? "optional" : "required"]
        if attribute.transient { notes.append("transient") }
        if let value = attribute.defaultValue { notes.append("default \(value)") }
        if let id = attribute.renamingIdentifier { notes.append("renaming ID \(id)") }
        if let derivation = attribute.derivation { notes.append("derived from \(derivation)") }
        return "  \(pad(attribute.name, width))  \(pad(attribute.type, 14))  \(notes.joined(separator: ", "))"
    }

    /// `  name      → Destination   to-many, optional, inverse x, nullify`.
    private func line(for relationship: Relationship, width: Int) -> String {
        var notes = [
            relationship.toMany ? (relationship.ordered ? "to-many ordered" : "to-many") : "to-one",
            relationship.optional ? "optional" : "required",
        ]
        if let inverse = relationship.inverse { notes.append("inverse \(inverse)") }
        notes.append(relationship.deleteRule.lowercased())
        if relationship.transient { notes.append("transient") }
        return
            "  \(pad(relationship.name, width))  \(pad("→ " + relationship.destination, 14))  \(notes.joined(separator: ", "))"
    }

    /// Version names for `indices`, consecutive ones as `first … last`.
    private func runs(of indices: [Int]) -> String {
        var parts: [String] = [], start = indices.first ?? 0, previous = start
        for index in indices.dropFirst() + [Int.max] {
            if index == previous + 1 { previous = index; continue }
            parts.append(
                start == previous ? versions[start].name : "\(versions[start].name) … \(versions[previous].name)")
            (start, previous) = (index, index)
        }
        return parts.joined(separator: ", ")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
