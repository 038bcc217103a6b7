import Foundation
import ObjectModel
import Yams

/// How many rows a history check's stores give each root entity, where one number for every
/// entity is not true to the app: a cache entity real stores never fill holds none, and a step
/// Core Data refuses only for rows (a new required relationship) then migrates as it does on
/// devices. A team keeps the file beside its bundle (`App.xcdatamodeld` →
/// `App.check-history.yaml`), and `check-history` reads it:
///
/// ```yaml
/// rows:
///   PageTemplateCategory: 0
/// ```
package struct HistoryRows: Sendable, Equatable {
    /// Rows per root entity, by name; the others get the check's `rows`.
    package var byEntity: [String: Int] = [:]
    /// The file they were read from; nil when there is none.
    package var file: String?

    /// The most rows a root entity may be given, as `--rows` allows.
    package static let most = 10_000

    /// No file: every entity gets the check's `rows`.
    package init() {}

    /// The file beside `bundle` that a history check reads.
    package static func file(beside bundle: URL) -> URL {
        bundle.deletingLastPathComponent().appendingPathComponent(
            bundle.deletingPathExtension().lastPathComponent + ".check-history.yaml")
    }

    /// The rows the file beside `url` sets for `bundle`'s entities; none when there is no file.
    /// Refused, naming the file, the entry and the fix: an entity no version has, a subentity
    /// (rows are set per hierarchy, at its root), a count that is not 0 to ``most``.
    package static func read(beside url: URL, bundle: ModelBundle) throws -> HistoryRows {
        let file = Self.file(beside: url)
        guard FileManager.default.fileExists(atPath: file.path) else { return HistoryRows() }
        let fix = "write it as `rows:` followed by `  Entity: count` lines, for root entities of \(bundle.name)"
        let data = try InputFile.read(file, what: "a check-history rows file", fix: fix)
        let node: Node?
        do { node = try Yams.compose(yaml: String(decoding: data, as: UTF8.self)) } catch {
            throw ModelFileError(file: file.path, problem: "is not YAML (\(error))", fix: fix)
        }
        guard let top = node?.mapping, top.keys.compactMap(\.string) == ["rows"], let rows = top["rows"]?.mapping
        else {
            throw ModelFileError(file: file.path, problem: "has no `rows:` mapping, or other keys beside it", fix: fix)
        }
        var read = HistoryRows()
        read.file = file.path
        for (key, value) in rows {
            let name = key.string ?? ""
            guard let count = value.int, (0...most).contains(count) else {
                throw ModelFileError(
                    file: file.path, problem: "gives \(name) \(value.string ?? "no number") rows",
                    fix: "give each entity a whole number of rows from 0 to \(most)")
            }
            try requireRoot(name, in: bundle, file: file.path)
            read.byEntity[name] = count
        }
        return read
    }

    /// `name` is an entity of some version of `bundle`, and a root in every version that has it.
    private static func requireRoot(_ name: String, in bundle: ModelBundle, file: String) throws {
        let found = bundle.versions.compactMap { version in version.model.entity(named: name).map { (version, $0) } }
        guard !found.isEmpty else {
            throw ModelFileError(
                file: file, problem: "names \(name), an entity no version of \(bundle.name) has",
                fix: "name entities as the model does (case counts), or remove the line")
        }
        if let (version, entity) = found.first(where: { $0.1.parentName != nil }), let parent = entity.parentName {
            throw ModelFileError(
                file: file, problem: "names \(name), a subentity of \(parent) in \(version.name)",
                fix: "set the rows of its hierarchy's root, \(parent): rows are generated per hierarchy")
        }
    }
}
