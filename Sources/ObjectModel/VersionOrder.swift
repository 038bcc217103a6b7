import Foundation

/// The order of a bundle's versions, oldest first, and where it comes from. A bundle records no
/// order: Xcode lists versions by name, and Core Data's automatic migration needs none (it takes
/// the store's model, found by hashes, to the one the app opens). An app's iterative migrator
/// does, and apps state theirs in code (Fearless's and Nova Wallet's `UserStorageVersion`,
/// Cyface's `CoreDataMigrationVersion`), often in an order names do not give (`UserDataModel` →
/// `MultiassetUserDataModel` → `…_v2`; `CyfaceModel` → `2` … `13`). So the order is the app's to
/// state, in a file beside the bundle or on the command line; without one it is guessed from the
/// names, and every plan or check that relies on it says so.
public enum VersionOrder: Hashable, Sendable {
    /// Guessed from the versions' names (`Model` < `Model 2` < `Model 10`).
    case byName
    /// As the app states it, in the file (or the option) named here.
    case stated(String)

    /// The file beside a bundle that states its order: `Name.xcdatamodeld.order`.
    public static func file(beside bundle: URL) -> URL {
        bundle.deletingLastPathComponent().appendingPathComponent(bundle.lastPathComponent + ".order")
    }

    /// The version names an order file's text lists, oldest first: one a line, with or without
    /// `.xcdatamodel`, `#` starting a comment, blank lines ignored.
    ///
    /// - Parameters:
    ///   - text: The file's text, or an option's `A,B,C`.
    ///   - file: Where it came from, which errors name.
    ///   - versions: The bundle's version names.
    /// - Returns: The names, oldest first.
    /// - Throws: A `ModelFileError` at the line of a name the bundle lacks or one listed twice.
    public static func names(in text: String, file: String, versions: Set<String>) throws -> [String] {
        let separator: Character = text.contains("\n") || !text.contains(",") ? "\n" : ","
        var names: [String] = []
        for (index, raw) in text.split(separator: separator, omittingEmptySubsequences: false).enumerated() {
            var line = String(raw.prefix { $0 != "#" }).trimmingCharacters(in: .whitespaces)
            if line.hasSuffix(".xcdatamodel") { line = String(line.dropLast(".xcdatamodel".count)) }
            guard !line.isEmpty else { continue }
            let place = separator == "\n" ? index + 1 : nil
            guard versions.contains(line) else {
                throw ModelFileError(
                    file: file, line: place,
                    problem:
                        "names \"\(line)\", which is not a version of the bundle (versions: \(versions.sorted(by: VersionName.precedes).joined(separator: ", ")))",
                    fix: "list the bundle's version names, oldest first, one a line")
            }
            guard !names.contains(line) else {
                throw ModelFileError(
                    file: file, line: place, problem: "names \"\(line)\" twice",
                    fix: "list each version once, in the order the app migrates through them")
            }
            names.append(line)
        }
        return names
    }
}

extension ModelBundle {
    /// The bundle with its versions in the order `names` states (oldest first), those it does not
    /// list after them by name, with a finding naming them; where no file names the current version,
    /// the last version `names` lists is current (the newest the app has).
    ///
    /// - Parameters:
    ///   - names: Version names, oldest first (``VersionOrder/names(in:file:versions:)``).
    ///   - source: Where the order was stated (a file, or `--order`).
    /// - Returns: The reordered bundle.
    public func ordered(by names: [String], source: String) -> ModelBundle {
        var bundle = self
        let listed = names.compactMap { version(named: $0) }
        let rest = versions.filter { !names.contains($0.name) }
        bundle.versions = listed + rest
        bundle.versionOrder = .stated(source)
        if !rest.isEmpty {
            bundle.findings.append(
                ModelFinding(
                    ModelProblem(
                        entity: name,
                        message:
                            "the order in \(source) leaves out \(rest.map(\.name).joined(separator: ", ")): they come after the versions it lists, in name order",
                        fix: "list every version in \(source), oldest first", verdict: .warning),
                    file: source))
        }
        // The order's last version is the newest the app has: current, where no file names one.
        if currentIsGuessed, let last = listed.last {
            bundle.currentVersionName = last.name
            bundle.currentIsGuessed = false
            bundle.findings = bundle.findings.map { finding in
                guard finding.problem.message.hasPrefix(CurrentVersion.guessedPrefix) else { return finding }
                var said = finding
                said.problem.message =
                    "no file names the current version: the order in \(source) ends with \"\(last.name)\", which is current"
                return said
            }
        }
        return bundle
    }
}
