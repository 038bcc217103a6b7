import ArgumentParser
import Demo
import Foundation
import MigrationConsole
import MigrationEngine

/// `chrysalis demo`: a worked example, start to finish, on a store with as many rows as asked.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a worked example: make its oldest store, fill it, migrate it to the current version.",
        discussion: """
        Without a name, runs the BookStore demo. The store is made in --dir (default: a new \
        temporary folder, printed) with the source text's rows plus --rows generated rows per \
        root entity, then migrated step by step with a progress line, showing at each stop the \
        queries the worked example shows. `chrysalis demo --list` lists the demos.

        Examples:
          chrysalis demo
          chrysalis demo books --rows 50000 --dir /tmp/books-demo
          chrysalis demo --list
        """
    )

    @Argument(help: "bookstore, books, recipes or groceries.")
    var name: String = "bookstore"

    @Option(help: "Generated rows per root entity, on top of the text's own.")
    var rows: Int = 200_000

    @Option(help: "The folder to make the store in (default: a new temporary folder).", completion: .directory)
    var dir: String?

    @Option(help: "The data generator's seed.")
    var seed: UInt64 = 1

    @Flag(help: "Run without the console, printing progress lines (always so without a terminal).")
    var headless = false

    @Flag(help: "List the demos.")
    var list = false

    @Flag(help: "Print progress as JSON lines.")
    var json = false

    func validate() throws {
        guard rows >= 0 else { throw ValidationError("--rows must be 0 or more") }
        guard list || DemoCatalog.example(named: name) != nil else {
            throw ValidationError("no demo named \(name); demos: \(DemoCatalog.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        if list {
            for example in DemoCatalog.all { print("\(example.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(example.summary)") }
            return
        }
        let example = DemoCatalog.example(named: name)!
        let directory = dir.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("chrysalis-demo-\(example.name)-\(UUID().uuidString.prefix(8))")
        var runner = DemoRunner(example: example, directory: directory, rows: rows)
        runner.seed = seed
        print("Demo \(example.name): \(example.summary)")
        print("Working in \(directory.path)")
        let view = DemoOutput()
        do {
            let bundle = try runner.prepare(view.show)
            if !headless && !json && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 {
                try runner.migrate(bundle: bundle, options: runner.options(), stops: runner.stopsBeforeConsole, view.show)
                let plan = try runner.consolePlan(bundle: bundle)
                if let outcome = ConsoleApp.run(store: runner.storePath, bundle: bundle, plan: plan, options: runner.options()) {
                    try ConsoleCommand.finish(outcome)
                    try runner.reportFinalStop(view.show)
                    print("\nThe store is \(runner.storePath).")
                    return
                }
            }
            let interrupt = SignalCancellation(token: runner.cancellation)
            let options = runner.options()
            let printer = ProgressPrinter(json: json, channel: options.progressChannel)
            try runner.migrate(bundle: bundle, options: options, view.show)
            withExtendedLifetime((printer, interrupt)) {}
            print("\nDone. The migrated store is \(runner.storePath); the original is kept beside it with ~ in its name.")
        } catch let exit as ExitCode {
            throw exit
        } catch let error as MigrationError where error.kind == .cancelled {
            FileHandle.standardError.write(Data("cancelled: \(error)\n".utf8))
            throw ExitCode(3)
        } catch {
            fail(error)
        }
    }
}

/// Prints a demo's narration and query results as aligned tables.
final class DemoOutput {
    private let interactive = isatty(STDERR_FILENO) == 1
    private var lastReported = Date.distantPast

    func show(_ event: DemoRunner.Event) {
        switch event {
        case .message(let text):
            print("\n\(text)")
        case let .generating(done, total):
            let now = Date()
            guard done == total || now.timeIntervalSince(lastReported) > 0.2 else { return }
            lastReported = now
            let line = "generating rows: \(done)/\(total)"
            FileHandle.standardError.write(Data((interactive ? "\r\u{1B}[2K\(line)" + (done == total ? "\n" : "") : line + "\n").utf8))
        case let .query(title, columns, rows):
            print("\n  \(title)")
            let limit = columns.count == 1 ? Int.max : 60
            let cells = [columns] + rows.map { $0.map { $0.count > limit ? String($0.prefix(limit - 3)) + "..." : $0 } }
            let widths = columns.indices.map { index in cells.map { index < $0.count ? $0[index].count : 0 }.max() ?? 0 }
            for (number, row) in cells.enumerated() {
                print("  " + row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  "))
                if number == 0 { print("  " + widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")) }
            }
        }
    }
}
