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
            beyond ASCII), migrates it to the current version the way the app migrates on devices \
            (--strategy: Core Data's automatic migration, an iterative migrator, Chrysalis's \
            progressive chaining by default, or the app's registered stages), using the \
            mapping models given where they match and the policies registered through the library, \
            and checks every inferred step's rows, values, defaults and links, each mapping step's \
            validation, and the target's hashes at the end. Reports every version: ok, or the step \
            and the change that fails, with the fix; then the failures grouped by the step they fail \
            at, and the versions not checked (after the current one, or refused by Core Data), each \
            with why. A store the generator could not make valid for its own model is reported as \
            generated data, never as a step's failure. Exits 0 only when every version checked migrates.

            --strategy iterative (--stepwise) checks each step once, on a store made where it starts, and gives each version \
            the first failing step of its way; the history is also walked whole, in a few chained \
            walks side by side. A history of \
            n versions costs about 2n steps, not n²/2.

            Run it in an app's CI on every model change, so a store that stops migrating is found \
            before users find it (progress goes to standard error):
              chrysalis check-history App/Model.xcdatamodeld --mappings App/Mappings --junit history.xml
            (--github adds GitHub Actions annotations and a step summary; docs/CI.md has a whole job.)

            Every entity gets --rows rows, unless App.check-history.yaml beside App.xcdatamodeld sets \
            its own: `rows:` then `  Entity: count` lines, per root entity (0 for a cache entity real \
            stores never fill, where a step Core Data refuses only for rows would fail for data no \
            user has).

            Stores are made in a temporary folder and removed; nothing else is written.

            \(ExitStatus.help("check-history"))
            """)

    @Argument(help: "The model bundle (.xcdatamodeld, or .momd with its .mom files).", completion: .directory)
    var bundle: String

    @Option(
        name: [.customLong("mappings"), .customLong("mapping")],
        help:
            "A mapping model (.xcmappingmodel, .cdm or .mapping.yaml), or a folder of them; repeatable. Used where one matches a step by its versions or hashes.",
        completion: .file())
    var mappings: [String] = []

    @Option(help: OrderOption.help)
    var order: String?

    @Option(help: StrategyName.help)
    var strategy: StrategyName?

    @Flag(help: "Visit every version, one step per consecutive pair: --strategy iterative.")
    var stepwise = false

    @Option(help: "Rows per entity in each version's store (the first hold edge values).")
    var rows = 12

    @Flag(
        help: ArgumentHelp(
            "Print one JSON object instead of text.",
            discussion:
                "{\"bundle\", \"current\", \"versions\": [{\"version\", \"ok\", \"error\", \"steps\", \"failingStep\", \"failure\"}], \"failingSteps\": [{\"step\", \"failure\", \"versions\", \"error\"}], \"skipped\": [{\"version\", \"reason\"}]}. Progress still goes to standard error."
        ))
    var json = false

    @Option(
        help: ArgumentHelp(
            "Also write a JUnit XML report to this file, for CI systems: one test case per version.",
            discussion:
                "- writes it to standard output, and the text report to standard error. A terminal, pipe or character device (/dev/null) is written to as it is; a symbolic link is written through; a file of another user's is rewritten in place, keeping its owner; a folder or a block device is refused.",
            valueName: "file"),
        completion: .file())
    var junit: String?

    @Flag(
        help: ArgumentHelp(
            "Also print GitHub Actions annotations, one per cause of failure, and a summary.",
            discussion:
                "Each cause is an ::error annotation on standard error, on the `contents` of the first version that fails for it; with GITHUB_STEP_SUMMARY set, a table of the causes is appended to that file, shown on the run's page."
        ))
    var github = false

    func validate() throws {
        try StrategyName.validate(strategy, stepwise: stepwise)
        guard rows >= 1, rows <= 10_000 else { throw ValidationError("--rows must be between 1 and 10000") }
    }

    func run() throws {
        let bundle = try OrderOption.apply(order, to: try ModelPath.load(self.bundle).requireBundle())
        let (models, _) = try PlanOptions.loadMappings(mappings)
        var check = HistoryCheck(
            bundle: bundle, mappings: models, strategy: try StrategyName.strategy(strategy, stepwise: stepwise),
            options: Registration.current.options(), rows: rows)
        check.entityRows = try entityRows(of: bundle)
        let temporary = FileManager.default.temporaryDirectory
        let directory = try Self.scratchFolder(in: temporary)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Progress goes to standard error in every mode: a CI log shows the check moving.
        let progress = StatusLine(enabled: true)
        let outcomes = check.run(in: directory) { started, count, version in
            progress.show("checking \(started)/\(count): \(TerminalText.oneLine(version))")
        }
        progress.clear()
        // A full temporary folder says nothing of the model: said as what it is, not as failures.
        let full = outcomes.filter { $0.failure == MigrationError.Kind.noSpace.rawValue }
        if !full.isEmpty {
            throw MigrationError(
                .noSpace,
                "check-history could not make or migrate its stores: the temporary folder \(temporary.path) (TMPDIR) filled up (\(full.count) of \(outcomes.count) versions stopped there); this says nothing of \(bundle.name)'s history",
                fix:
                    "free space there, or set TMPDIR to a folder with more room (each version's store needs about \(rows) rows per entity, twice over while it migrates)"
            )
        }
        let report = HistoryReport(bundle, check: check, outcomes: outcomes)
        let junitFile = junit.map { OutputFile(path: $0, purpose: "the JUnit report") }
        if let junitFile {
            try junitFile.write(Data(report.junit(strategy: check.strategy.description).utf8))
        }
        let text =
            json
            ? try JSONOutput.encode(report) : TerminalText.visible(report.text(strategy: check.strategy.description))
        // With the JUnit report on standard output, the text goes to standard error.
        if junitFile?.isStandardOutput == true { StandardStreams.err(text + "\n") } else { print(text) }
        if github {
            let annotations = GitHubAnnotations(report: report, bundlePath: self.bundle)
            StandardStreams.err(annotations.commands())
            if let summary = ProcessInfo.processInfo.environment["GITHUB_STEP_SUMMARY"], !summary.isEmpty {
                try OutputFile(path: summary, purpose: "the GitHub step summary")
                    .append(Data(annotations.summary(strategy: check.strategy.description).utf8))
            }
        }
        if outcomes.contains(where: { !$0.ok }) { throw ExitCode(1) }
    }

    /// A new folder for the check's stores in `temporary`, or the error that names TMPDIR.
    private static func scratchFolder(in temporary: URL) throws -> URL {
        do {
            return try ScratchFolder.make(prefix: "chrysalis-history-", in: temporary)
        } catch {
            throw MigrationError(
                .notWritable,
                "check-history makes its stores in the temporary folder \(temporary.path) (TMPDIR), which cannot be used: \(error.localizedDescription)",
                fix: "set TMPDIR to a writable folder, e.g. TMPDIR=/var/tmp")
        }
    }
}

/// One line of progress on standard error, rewritten in place on a terminal.
private struct StatusLine {
    let enabled: Bool
    private let terminal = isatty(STDERR_FILENO) == 1

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ text: String) {
        guard enabled else { return }
        StandardStreams.err((terminal ? "\r\u{1B}[K\(text)" : "\(text)\n"))
    }

    func clear() {
        if enabled && terminal { StandardStreams.err("\r\u{1B}[K") }
    }
}

extension CheckHistoryCommand {
    /// The rows the app's file beside the bundle sets per root entity (``HistoryRows``), said on
    /// standard error when there is one.
    fileprivate func entityRows(of bundle: ModelBundle) throws -> HistoryRows {
        let read = try HistoryRows.read(beside: URL(fileURLWithPath: self.bundle), bundle: bundle)
        if let file = read.file {
            let set = read.byEntity.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            StandardStreams.err(
                "check-history: rows per entity from \(TerminalText.visible(file)): \(set.joined(separator: ", ")); "
                    + "every other entity \(rows)\n")
        }
        return read
    }
}
