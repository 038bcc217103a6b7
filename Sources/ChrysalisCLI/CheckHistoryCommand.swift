import ArgumentParser
import Foundation
import MigrationEngine
import ObjectModel

/// `chrysalis check-history`: every version of a bundle, migrated to the current one and checked.
struct CheckHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-history",
        abstract: "Prove that a store at every version of a model bundle migrates to the current version.",
        discussion: """
        For every version of the bundle, makes a store at that version (rows for every entity, \
        links for every relationship, edge values: no value, empty, the type's extremes, text \
        beyond ASCII), migrates it to the current version as Core Data would (straight, or \
        --stepwise through every version, as apps with an iterative migrator do), using the \
        mapping models given where they match and the policies registered through the library, \
        and checks every inferred step's rows, values, defaults and links, each mapping step's \
        validation, and the target's hashes at the end. Reports every version: ok, or the step \
        and the change that fails, with the fix. Exits 0 only when every version migrates.

        Run it in an app's CI on every model change, so a store that stops migrating is found \
        before users find it:
          chrysalis check-history App/Model.xcdatamodeld --mappings App/Mappings --json

        Stores are made in a temporary folder and removed; nothing else is written.
        """)

    @Argument(help: "The model bundle (.xcdatamodeld, or .momd with its .mom files).", completion: .directory)
    var bundle: String

    @Option(name: [.customLong("mappings"), .customLong("mapping")],
            help: "A mapping model (.xcmappingmodel, .cdm or .mapping.yaml), or a folder of them; repeatable. Used where one matches a step by its versions or hashes.",
            completion: .file())
    var mappings: [String] = []

    @Flag(help: "Visit every version: one step per consecutive pair, as an iterative migrator does (default: Core Data's straight inference).")
    var stepwise = false

    @Option(help: "Rows per root entity in each version's store (the first hold edge values).")
    var rows = 12

    @Flag(help: "Print one JSON object: {\"bundle\", \"current\", \"versions\": [{\"version\", \"ok\", \"error\", \"steps\"}]}.")
    var json = false

    func validate() throws {
        guard rows >= 1, rows <= 10_000 else { throw ValidationError("--rows must be between 1 and 10000") }
    }

    func run() throws {
        let bundle = try ModelPath.load(self.bundle).requireBundle()
        let (models, _) = try PlanOptions.loadMappings(mappings)
        let check = HistoryCheck(bundle: bundle, mappings: models, route: stepwise ? .stepwise : .automatic,
                                 options: Registration.current.options(), rows: rows)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let progress = StatusLine(enabled: !json)
        let outcomes = check.run(in: directory) { started, count, version in progress.show("checking \(started)/\(count): \(version)") }
        progress.clear()
        if json {
            print(try JSONOutput.encode(Report(bundle: bundle.name, current: check.target, versions: outcomes)))
        } else {
            print(Self.text(outcomes, bundle: bundle.name, target: check.target, stepwise: stepwise))
        }
        if outcomes.contains(where: { !$0.ok }) { throw ExitCode(1) }
    }

    private struct Report: Encodable {
        var bundle: String
        var current: String
        var versions: [HistoryCheck.Outcome]
    }

    static func text(_ outcomes: [HistoryCheck.Outcome], bundle: String, target: String, stepwise: Bool) -> String {
        let width = outcomes.map(\.version.count).max() ?? 0
        var lines = outcomes.map { outcome in
            let name = outcome.version.padding(toLength: width, withPad: " ", startingAt: 0)
            if outcome.ok {
                return "ok    \(name)  \(outcome.steps == 0 ? "the target itself" : "\(outcome.steps) step\(outcome.steps == 1 ? "" : "s"), checked")"
            }
            return "FAIL  \(name)  \(outcome.error ?? "failed")"
        }
        let failed = outcomes.filter { !$0.ok }.count
        lines.append("")
        lines.append(failed == 0
            ? "All \(outcomes.count) versions of \(bundle) migrate to \(target)\(stepwise ? " step by step" : ""), every step checked."
            : "\(failed) of \(outcomes.count) versions of \(bundle) do not migrate to \(target)\(stepwise ? " step by step" : "").")
        return lines.joined(separator: "\n")
    }
}

/// One line of progress on standard error, rewritten in place on a terminal.
private struct StatusLine {
    let enabled: Bool
    private let terminal = isatty(STDERR_FILENO) == 1

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ text: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data((terminal ? "\r\u{1B}[K\(text)" : "\(text)\n").utf8))
    }

    func clear() {
        if enabled && terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
