import ArgumentParser
import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// `chrysalis migrate`: runs the plan, headless, with a progress line.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to the current (or --to) version, step by step.",
        discussion: """
        Runs what `chrysalis plan` shows. Each step writes a new store beside the source, verifies \
        it and swaps it in; the original is kept as Name~.sqlite (unless --no-backup). On an error, \
        Ctrl-C or a closed terminal, the step rolls back and the store is as it was. A step that \
        would not fit on the volume, a store another process is migrating or writing (named by \
        pid), and a read-only directory are refused before any work. After a crash, run the same \
        command again: it cleans up and finishes.

        Policies named in mapping models must be registered; this build registers the demos' \
        policies (PublicationToPublicationMigrationPolicy, MHWBookToBookPolicy, MHWUserToUserPolicy).

        Exit status: 0 migrated (or nothing to do), 1 error, 2 usage, 3 cancelled.

        Examples:
          chrysalis migrate Books.sqlite --model BookStore.xcdatamodeld --mappings Mappings/
          chrysalis migrate Books.sqlite --model Model.xcdatamodeld --to Model2 --json
        """
    )

    @OptionGroup var options: PlanOptions

    @Flag(help: "Migrate a temporary copy instead, report, and delete it; the store is not touched.")
    var dryRun = false

    @Flag(help: "Do not keep the original store as Name~.sqlite.")
    var noBackup = false

    @Flag(help: "Print progress and the result as JSON lines.")
    var json = false

    func run() throws {
        var scratch: URL?
        defer { scratch.map { try? FileManager.default.removeItem(at: $0) } }
        do {
            var plan = try options.plan().1
            var path = options.store
            if dryRun {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-dry-run-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                scratch = directory
                let copy = directory.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent).path
                for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
                    try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
                }
                path = copy
                plan = try PlanOptions.plan(options, store: copy).1
            }
            guard !plan.steps.isEmpty else {
                // Still under the lock: clean up what an interrupted run may have left beside it.
                _ = try MigrationRunner.run(plan, store: path)
                emit(json ? #"{"event":"result","steps":[],"store":"\#(options.store)","version":"\#(plan.storeVersion)"}"# : "\(options.store) is already at \(plan.storeVersion): nothing to do.")
                return
            }
            let cancellation = CancellationToken()
            let interrupt = SignalCancellation(token: cancellation)
            let printer = ProgressPrinter(json: json)
            let report = try MigrationRunner.run(plan, store: path, options: MigrationOptions(policies: DemoResources.policies, cancellation: cancellation,
                                                                                              configureManager: BookStoreSynopsis.install),
                                                 keepBackup: !noBackup && !dryRun)
            withExtendedLifetime((printer, interrupt)) {}
            emit(json ? try MigrateReport(report, store: options.store, dryRun: dryRun).json() : MigrateReport(report, store: options.store, dryRun: dryRun).text())
        } catch let error as MigrationError where error.kind == .cancelled {
            FileHandle.standardError.write(Data("cancelled: \(error)\n".utf8))
            throw ExitCode(3)
        } catch {
            fail(error)
        }
    }

    private func emit(_ text: String) {
        print(text)
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
    var steps: [Step]
    var rowsBefore: [String: Int], rowsAfter: [String: Int]

    init(_ report: MigrationRunner.Report, store: String, dryRun: Bool) {
        self.store = store
        self.dryRun = dryRun
        from = report.steps.first?.sourceVersion ?? ""
        to = report.steps.last?.destinationVersion ?? ""
        backup = report.backup
        rowsBefore = report.rowsBefore
        rowsAfter = report.rowsAfter
        steps = report.steps.map { Step(from: $0.sourceVersion, to: $0.destinationVersion, passes: $0.passes,
                                        rowsBefore: $0.rowsBefore, rowsAfter: $0.rowsAfter, seconds: ($0.duration * 1000).rounded() / 1000) }
    }

    func json() throws -> String { try JSONOutput.encode(self, pretty: false) }

    func text() -> String {
        let seconds = steps.map(\.seconds).reduce(0, +)
        var lines = ["\(dryRun ? "Dry run: a copy of " : "Migrated ")\(store) from \(from) to \(to) in \(String(format: "%.2f", seconds)) s, \(steps.count) step\(steps.count == 1 ? "" : "s")."]
        for step in steps {
            lines.append("  \(step.from) → \(step.to) (\(step.passes.joined(separator: ", ")))")
        }
        for entity in Set(rowsBefore.keys).union(rowsAfter.keys).sorted() {
            let before = rowsBefore[entity].map(String.init) ?? "—", after = rowsAfter[entity].map(String.init) ?? "—"
            lines.append("  \(entity.padding(toLength: 20, withPad: " ", startingAt: 0)) \(before) → \(after)")
        }
        if rowsBefore.isEmpty && rowsAfter.isEmpty && !steps.isEmpty {
            lines.append("  Every row is unchanged: only the schema changed, in place.")
        }
        if let backup { lines.append("The original is kept as \(backup).") }
        if dryRun { lines.append("Nothing was changed; the copy is deleted.") }
        return lines.joined(separator: "\n")
    }
}

/// Turns Ctrl-C (SIGINT), SIGTERM and a closed terminal (SIGHUP) into a cancellation: the
/// migration stops at its next chunk and rolls back instead of dying half way.
final class SignalCancellation: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    init(token: CancellationToken) {
        for signalNumber in [SIGINT, SIGHUP, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { token.cancel() }
            source.resume()
            sources.append(source)
        }
    }
}
