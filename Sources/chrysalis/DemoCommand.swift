import ArgumentParser
import ChrysalisCLI
import Demo
import Foundation
import MigrationConsole
import MigrationEngine
import ObjectModel

/// `chrysalis demo`: a worked example, start to finish, on a store with as many rows as asked.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a worked example: make its oldest store, fill it, migrate it to the current version.",
        discussion: """
            Without a name, runs the BookStore demo. The store is made in --dir (default: a new \
            temporary folder, printed) with the source text's rows plus --rows generated rows per \
            root entity, then migrated through every version the example stops at, as one plan. On a \
            terminal the console opens on the store's first version and runs every step, each with \
            its bar and its result; with --headless (or without a terminal) the demo says what each \
            step does and why, and shows what the worked example shows. `chrysalis demo --list` \
            lists the demos.

            \(ExitStatus.help("demo"))

            Examples:
              chrysalis demo
              chrysalis demo books --rows 50000 --dir /tmp/books-demo
              chrysalis demo --list
            """
    )

    @Argument(help: "bookstore, books, recipes, groceries or staged.")
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

    @Option(
        name: .customLong("auto"),
        help: ArgumentHelp(
            """
            In the console, step through the plan by itself, going on after SECONDS at each pause: any key stops \
            it, a starts it again.
            """,
            valueName: "seconds")
    )
    var autoAdvance: Double?

    @Flag(
        help: ArgumentHelp(
            "No dim text, for a projector (or set CHRYSALIS_HIGH_CONTRAST=1).",
            discussion: "Positions, rules and hints are drawn as plain text, the title bar in reverse video."))
    var highContrast = false

    @Flag(help: "Print progress as JSON lines.")
    var json = false

    func validate() throws {
        guard rows >= 0 else { throw ValidationError("--rows must be 0 or more") }
        if let autoAdvance, !(autoAdvance > 0 && autoAdvance <= 3600) {
            throw ValidationError("--auto takes the seconds between steps, from more than 0 to 3600 (say --auto 3)")
        }
        guard list || DemoCatalog.example(named: name) != nil else {
            throw ValidationError(
                "no demo named \(name); demos: \(DemoCatalog.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        // Read by the terminal adapter as it opens, as NO_COLOR is.
        if highContrast { setenv("CHRYSALIS_HIGH_CONTRAST", "1", 1) }
        if list {
            for example in DemoCatalog.all {
                print("\(example.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(example.summary)")
            }
            return
        }
        let example = DemoCatalog.example(named: name)!
        let directory =
            dir.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "chrysalis-demo-\(example.name)-\(UUID().uuidString.prefix(8))")
        var runner = DemoRunner(example: example, directory: directory, rows: rows)
        runner.seed = seed
        let view = DemoOutput()
        view.say("Demo \(example.name): \(example.summary)")
        view.say("Working in \(directory.path)")
        let onTerminal = !headless && !json && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        do {
            // Ctrl-C while the rows are made stops there too, leaving no store.
            let generating = SignalCancellation(token: runner.cancellation)
            let bundle = try runner.prepare(showBefore: !onTerminal, view.show)
            generating.stop()
            let plan = try runner.plan(bundle: bundle)
            if onTerminal, try console(runner, bundle: bundle, plan: plan) { return }
            try narrate(runner, bundle: bundle, plan: plan, view: view)
        } catch let exit as ExitCode {
            throw exit
        } catch let error as MigrationError where error.kind == .cancelled {
            StandardStreams.err("cancelled: \(error)\n")
            throw ExitCode(3)
        } catch {
            fail(error)
        }
    }

    /// The whole plan in the console, from the store's first version; false when there is no
    /// usable terminal after all.
    private func console(_ runner: DemoRunner, bundle: ModelBundle, plan: MigrationPlan) throws -> Bool {
        let showcase: ConsoleApp.Showcase = { done, note in
            var tables: [StepResult.Table] = []
            guard DemoRunner.endsStop(done, of: plan) else { return tables }
            if let lesson = runner.lesson(at: done.step.destination.name) {
                tables.append(.init(title: lesson, columns: [], rows: []))
            }
            try runner.arrive(at: done.step.destination.name) { event in
                switch event {
                case let .query(title, columns, rows): tables.append(.init(title: title, columns: columns, rows: rows))
                case .demoWork(let text):
                    tables.append(.init(title: "The demo's own work: " + text, columns: [], rows: []))
                case let .working(done, total): note("the demo's own work: rows \(done)/\(total)")
                default: break
                }
            }
            return tables
        }
        guard
            let outcome = ConsoleApp.run(
                store: runner.storePath, bundle: bundle, plan: plan, options: runner.options(),
                stepMode: autoAdvance != nil,
                startImmediately: autoAdvance != nil, autoAdvance: autoAdvance, showcase: showcase)
        else {
            return false
        }
        // `finish` says how it ended (once); what is left is where the files are.
        defer {
            DemoOutput().say(
                "The store is \(runner.storePath)"
                    + (outcome.isMigrated ? "; the original is kept beside it with ~ in its name" : "")
                        + """
                        . The demo's files take \(Self.size(of: runner.directory)) in \(runner.directory.path): `rm -r \
                        \(runner.directory.path)` removes them.
                        """
            )
        }
        try outcome.finish()
        return true
    }

    /// The plan said in words, then run with progress lines, each step's result and the
    /// example's queries printed as the step ends.
    private func narrate(_ runner: DemoRunner, bundle: ModelBundle, plan: MigrationPlan, view: DemoOutput) throws {
        view.showPlan(
            plan, defaultRoute: try runner.defaultRoute(bundle: bundle), staged: runner.example.strategy != nil,
            lessons: runner.lesson(at:))
        var options = runner.options()
        options.afterStep = { done in
            view.showStep(done)
            if DemoRunner.endsStop(done, of: plan) { try runner.arrive(at: done.step.destination.name, view.show) }
        }
        let interrupt = SignalCancellation(token: runner.cancellation)
        let printer = ProgressPrinter(json: json, channel: options.progressChannel)
        _ = try MigrationRunner.run(plan, store: runner.storePath, options: options)
        withExtendedLifetime((printer, interrupt)) {}
        print("")
        view.say(
            "Done. The migrated store is \(runner.storePath); the original, at \(plan.storeVersion), is kept beside it with ~ in its name. "
                + """
                The demo's files take \(Self.size(of: runner.directory)) in \(runner.directory.path): `rm -r \
                \(runner.directory.path)` removes them.
                """
        )
    }

    /// `80 MB`: what the files in `directory` take.
    private static func size(of directory: URL) -> String {
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey])
        var bytes = 0
        while let file = files?.nextObject() as? URL {
            bytes += (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
        }
        return bytes >= 1 << 20 ? "\(bytes >> 20) MB" : "\(max(bytes >> 10, 1)) KB"
    }
}
