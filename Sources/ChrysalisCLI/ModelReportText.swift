import ObjectModel

extension ModelReport {
    /// The report as aligned plain text: versions first, then each version's entities.
    func text() -> String {
        var lines = ["\(bundle): \(versions.count) version\(versions.count == 1 ? "" : "s"), current \(current)", ""]
        for version in versions {
            lines.append("\(version.name == current ? "* " : "  ")\(version.name)\(version.name == current ? "  (current)" : "")")
        }
        if versions.allSatisfy({ $0.identifiers == nil }) {
            lines += ["", "A compiled bundle holds hashes only; give its .xcdatamodeld to see entities and properties."]
        }
        for version in versions {
            lines += ["", "── \(version.name) " + String(repeating: "─", count: max(3, 60 - version.name.count))]
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
                let width = max(((entity.attributes ?? []).map(\.name) + (entity.relationships ?? []).map(\.name)).map(\.count).max() ?? 0, 8)
                for attribute in entity.attributes ?? [] {
                    var notes = [attribute.optional ? "optional" : "required"]
                    if attribute.transient { notes.append("transient") }
                    if let value = attribute.defaultValue { notes.append("default \(value)") }
                    if let id = attribute.renamingIdentifier { notes.append("renaming ID \(id)") }
                    if let derivation = attribute.derivation { notes.append("derived from \(derivation)") }
                    lines.append("  \(pad(attribute.name, width))  \(pad(attribute.type, 14))  \(notes.joined(separator: ", "))")
                }
                for relationship in entity.relationships ?? [] {
                    var notes = [relationship.toMany ? (relationship.ordered ? "to-many ordered" : "to-many") : "to-one",
                                 relationship.optional ? "optional" : "required"]
                    if let inverse = relationship.inverse { notes.append("inverse \(inverse)") }
                    notes.append(relationship.deleteRule.lowercased())
                    if relationship.transient { notes.append("transient") }
                    lines.append("  \(pad(relationship.name, width))  \(pad("→ " + relationship.destination, 14))  \(notes.joined(separator: ", "))")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
