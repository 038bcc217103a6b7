import ArgumentParser
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// `chrysalis migrate`: runs the plan, headless, with a progress line.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to the current (or --to) version.",
        discussion: """
            Runs what `chrysalis plan` shows. A lightweight step changes the store in place, in one \
            SQLite transaction (a table whose storage changes is rebuilt inside it); a mapping step \
            writes a new store beside it, verifies it and swaps it in. The original is kept as \
            Name~.sqlite (unless --no-backup) until the whole plan is done: on an error, Ctrl-C or a \
            closed terminal the store is put back as it was, byte for byte, and every message says \
            where it stands (--keep-progress keeps the steps done instead). A step that would not fit \
            on the volume, a store another process is migrating or writing (named by pid), a \
            read-only store or directory, and an unregistered policy are refused before any work. \
            After a crash, run the same command again (or `chrysalis recover`): it puts the original \
            back or tidies up, then finishes.

            With --json, progress is one JSON line per event and the last line is always the \
            result ({"event":"result",...}) or the error ({"event":"error","state":...}).

            Custom entity migration policies named in mapping models must be registered: `chrysalis` \
            registers none, an app's own build of the command line registers its own (see the \
            README's "Your own policies"); `plan` names any that are missing.

            \(ExitStatus.help("migrate"))

            Examples:
              chrysalis migrate App.sqlite --model App.xcdatamodeld
              chrysalis migrate App.sqlite --model App.xcdatamodeld \\
                  --mappings Mappings/ --to "App 7" --json
            """
    )

    @OptionGroup var options: PlanOptions

    @Flag(help: "Migrate a temporary copy instead, report, and delete it; the store is not touched.")
    var dryRun = false

    @Flag(help: "Do not keep the original store as Name~.sqlite once the migration is done.")
    var noBackup = false

    @Flag(
        help: ArgumentHelp(
            "Keep the steps already done when a later step fails or is cancelled.",
            discussion:
                "By default a plan of several steps is all or nothing: the original is put back, byte for byte. With this, the store stays at the last version reached, and the message names it and the backup."
        ))
    var keepProgress = false

    @Flag(
        help: ArgumentHelp(
            "Read every page of the store before the first write, and refuse a damaged one.",
            discussion:
                "SQLite's quick_check, on the store before the first write and on each mapping step's new store before it is swapped in. It reads every page, so it takes time in proportion to the store's size, even for a step that only changes the schema. Without it, a step meets a damaged page when it reads it and the plan is undone, as it is on any error; a schema-only step reads no rows, so it leaves a damage it never touched as it was; a new store is checked by its row counts. Core Data makes no such check."
        ))
    var checkPages = false

    @Flag(
        help:
            "Print progress and the result (or the error) as JSON lines: the last line is always a result or an error event."
    )
    var json = false

    func run() throws {
        var scratch: DryRunCopy?
        // Removed on every way out, errors included (`fail` ends the process without unwinding).
        let cleanUp = { scratch?.remove() }
        defer { _ = cleanUp() }
        // From the first moment: a Ctrl-C during planning cancels too, and changes nothing.
        let cancellation = CancellationToken()
        let store = options.store, dryRun = dryRun
        let interrupt = SignalCancellation(token: cancellation) {
            dryRun
                ? "a dry run works on a copy: the store was not touched"
                : StoreState.sentenceAfterStoppingAtOnce(store: store)
        }
        do {
            var path = options.store
            if dryRun {
                let copy = try DryRunCopy(of: options.store)
                scratch = copy
                path = copy.path
            }
            // A crashed writer's unfinished transaction is rolled back first (on the copy, for a
            // dry run): until then the store cannot even be read.
            try PersistentStore.recoverInterruptedTransaction(at: path)
            let (bundle, plan) = try PlanOptions.plan(options, store: path)
            try Self.requireNamedTarget(bundle, options: options)
            var migration = Registration.current.options(cancellation: cancellation)
            migration.checksPages = checkPages
            if !json, !dryRun, !plan.steps.isEmpty { Self.warnOfUnseenHolders(path) }
            let printer = ProgressPrinter(json: json, channel: migration.progressChannel)
            let report = try MigrationRunner.run(
                plan, store: path, options: migration,
                keepBackup: !noBackup && !dryRun, keepProgress: keepProgress)
            withExtendedLifetime((printer, interrupt)) {}
            if let recovered = report.recovered, !json { StandardStreams.err("note: \(recovered)\n") }
            guard !plan.steps.isEmpty else {
                print(
                    json
                        ? #"{"event":"result","steps":[],"store":\#(JSONOutput.quoted(options.store)),"version":\#(JSONOutput.quoted(plan.storeVersion)),"state":"unchanged"}"#
                        : "\(options.store) is already at \(plan.storeVersion): nothing to do.")
                return
            }
            let result = MigrateReport(report, plan: plan, store: options.store, dryRun: dryRun)
            StandardStreams.out((json ? try result.json() : TerminalText.visible(result.text())) + "\n")
            StandardStreams.sayIfOutputWasLost(
                "\(TerminalText.visible(options.store)) is at \(plan.targetVersion), migrated in full\(dryRun ? " (a dry run, on a copy)" : "")"
            )
        } catch {
            _ = cleanUp()
            fail(scratch?.describing(error) ?? error, json: json, store: options.store)
        }
    }

    /// Says, before the first write, what the look for other processes holding the store cannot see.
    private static func warnOfUnseenHolders(_ path: String) {
        if let unseen = MigrationRunner.unseenHolders(store: path) {
            StandardStreams.err("warning: \(TerminalText.visible(unseen))\n")
        }
    }

    /// Says why the migration stopped and where the store stands (on standard error, or as the
    /// JSON `error` event that ends the output), and exits: 3 when cancelled, else 1.
    private func fail(_ error: Error, json: Bool, store: String) -> Never {
        // An error without a state stopped the command before the runner began: nothing changed.
        let cancelled = (error as? MigrationError)?.kind == .cancelled
        let state = (error as? MigrationError)?.state
        let line = state == nil ? unchangedStore(error) : "\(error)"
        if json {
            var event: [String: Any] = ["event": "error", "store": store, "message": line, "cancelled": cancelled]
            if let state {
                event["state"] = state.name
                event["version"] = state.version
                if let backup = state.backup { event["backup"] = backup }
            } else {
                event["state"] = "unchanged"
            }
            if let data = try? JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]) {
                StandardStreams.out(String(decoding: data, as: UTF8.self) + "\n")
            }
            StandardStreams.sayIfOutputWasLost("\(cancelled ? "cancelled" : "error"): \(TerminalText.visible(line))")
        } else {
            StandardStreams.err("\(cancelled ? "cancelled" : "error"): \(TerminalText.visible(line))\n")
        }
        Foundation.exit(cancelled ? 3 : 1)
    }

}

extension MigrateCommand {
    /// A bundle that does not say which version is current gets no migration to a guess: the
    /// user names the target (Fearless's empty `.xccurrentversion`: the guess was the app's first
    /// version, and a store at its newest would have lost the rows of seven entities).
    static func requireNamedTarget(_ bundle: ModelBundle, options: PlanOptions) throws {
        guard bundle.currentIsGuessed, options.target == nil else { return }
        let said = bundle.findings.first { $0.problem.message.contains("the current version is a guess") }
        throw MigrationError(
            .wrongModel,
            """
            \(bundle.name) does not say which version is current\(said.map { " (\($0.problem.message))" } ?? ""); \
            Chrysalis migrates to a guess only when told: nothing was changed
            """,
            fix:
                """
                name the target with --to (\(bundle.currentVersionName) is the guess; `chrysalis model` lists the \
                versions), or choose the current version in Xcode
                """)
    }
}

extension PlanOptions {
    /// The same plan for a copy of the store.
    static func plan(_ options: PlanOptions, store: String) throws -> (ModelBundle, MigrationPlan) {
        var copy = options
        copy.store = store
        return try copy.plan()
    }
}

/// The final report of `chrysalis migrate`.
struct MigrateReport: Encodable {
    struct Step: Encodable {
        var from: String, to: String, passes: [String]
        var rowsBefore: [String: Int], rowsAfter: [String: Int]
        var seconds: Double
    }

    var event = "result"
    var store: String
    var dryRun: Bool
    var from: String
    var to: String
    var backup: String?
    /// Every file of the backup (a WAL store's is two: keep and copy them together).
    var backupFiles: [String]
    var steps: [Step]
    var rowsBefore: [String: Int], rowsAfter: [String: Int]
    /// What the store held beyond its model, and what the migration did with each (the plan's words).
    var beyondModel: [String]
    /// Every loss the plan named (`plan`'s `data dropped:` findings, each with its rows when
    /// counted), said again once it happened: never only in `plan`.
    var dataDropped: [String]

    init(_ report: MigrationRunner.Report, plan: MigrationPlan, store: String, dryRun: Bool) {
        self.store = store
        beyondModel = plan.beyondModel
        dataDropped = plan.steps.flatMap { step -> [String] in
            guard case .lightweight = step.kind else { return [] }
            return step.changes.filter(\.dropsData).map {
                "\(step.source.name) → \(step.destination.name): \($0.sentence)"
            }
        }
        self.dryRun = dryRun
        from = report.steps.first?.sourceVersion ?? ""
        to = report.steps.last?.destinationVersion ?? ""
        backup = report.backup
        backupFiles =
            report.backup.map { backup in
                [backup, StoreFiles.wal(of: backup)].filter { FileManager.default.fileExists(atPath: $0) }
            } ?? []
        rowsBefore = report.rowsBefore
        rowsAfter = report.rowsAfter
        steps = report.steps.map {
            Step(
                from: $0.sourceVersion, to: $0.destinationVersion, passes: $0.passes,
                rowsBefore: $0.rowsBefore, rowsAfter: $0.rowsAfter, seconds: ($0.duration * 1000).rounded() / 1000)
        }
    }

    func json() throws -> String { try JSONOutput.encode(self, pretty: false) }

    func text() -> String {
        let seconds = steps.map(\.seconds).reduce(0, +)
        var lines = [
            "\(dryRun ? "Dry run: a copy of " : "Migrated ")\(store) from \(from) to \(to) in \(String(format: "%.2f", seconds)) s, \(steps.count) step\(steps.count == 1 ? "" : "s")."
        ]
        // A staged migration's handler leaves the store at its version: it is said where it ran.
        for step in steps {
            lines.append(
                "  \(step.from == step.to ? "at \(step.from)" : "\(step.from) → \(step.to)") (\(step.passes.joined(separator: ", ")))"
            )
        }
        for entity in Set(rowsBefore.keys).union(rowsAfter.keys).sorted() {
            let before = rowsBefore[entity].map(String.init) ?? "—", after = rowsAfter[entity].map(String.init) ?? "—"
            lines.append("  \(entity.padding(toLength: 20, withPad: " ", startingAt: 0)) \(before) → \(after)")
        }
        if rowsBefore.isEmpty && rowsAfter.isEmpty && steps.contains(where: { $0.from == $0.to }) {
            lines.append(
                "  The app's handlers wrote what they saved; the other steps changed only the schema, in place.")
        } else if rowsBefore.isEmpty && rowsAfter.isEmpty && !steps.isEmpty {
            lines.append(
                dataDropped.isEmpty
                    ? "  Every row is unchanged: only the schema changed, in place."
                    : "  Every row is kept: only the schema changed, in place, dropping what is listed below.")
        }
        if !dataDropped.isEmpty {
            lines += ["Data dropped, as planned (\(dataDropped.count)):"] + dataDropped.map { "  • \($0)" }
        }
        if !beyondModel.isEmpty { lines += ["Beyond the model:"] + beyondModel.map { "  • \($0)" } }
        if let backup { lines.append("The original is kept as \(StoreFiles.named(backup)).") }
        if dryRun { lines.append("Nothing was changed; the copy is deleted.") }
        return lines.joined(separator: "\n")
    }
}
