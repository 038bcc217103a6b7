import ArgumentParser
import Foundation
import MigrationConsole
import MigrationEngine
import ObjectModel
import SQLiteStore

/// `chrysalis console`: the migration console on a store.
struct ConsoleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Open the migration console: versions, model changes, mappings, the plan, and a live migration.",
        discussion: """
            Tab and Shift-Tab (or 1-5) move between screens; l gives the keys to the pane beside a \
            list and j/k scroll it (Esc gives them back); / finds, n and N find again; m runs every \
            step of the plan (in-place lightweight steps and mapping steps alike) with a live progress \
            bar and each step's result, what it dropped first; s steps through it, pausing after each \
            entity mapping and each step; on the Plan screen, Enter shows the selected step's SQL as \
            `chrysalis plan --sql` prints it (Esc or q goes back); with --verbose, v shows the live log \
            (the engine's decisions and its SQL) over any screen; ? lists every key. While a migration \
            runs, keys are ignored except x (cancel, after a confirmation: the store stays as it was) \
            and ?. \
            If the terminal goes away (SSH dropped), the migration finishes or rolls back and writes \
            Name.sqlite.chrysalis-report.txt beside the store. Without a terminal, use `chrysalis migrate`.

            Set SWIFT_BACKTRACE=interactive=no when running over SSH.

            \(ExitStatus.help("console"))

            Example:
              chrysalis console BookStore.sqlite --model BookStore.xcdatamodeld --mappings Mappings/
            """
    )

    @OptionGroup var options: PlanOptions

    @Flag(help: "Start at once in step mode.")
    var step = false

    @Flag(help: "Start the migration at once.")
    var start = false

    @Option(
        name: .customLong("auto"),
        help: ArgumentHelp(
            """
            Step mode that goes on by itself after SECONDS at each pause, for a demo: any key stops it, a starts \
            it again.
            """,
            valueName: "seconds"))
    var autoAdvance: Double?

    @Flag(
        help: ArgumentHelp(
            "No dim text, for a projector (or set CHRYSALIS_HIGH_CONTRAST=1).",
            discussion: "Positions, rules and hints are drawn as plain text, the title bar in reverse video."))
    var highContrast = false

    func validate() throws {
        if let autoAdvance, !(autoAdvance > 0 && autoAdvance <= 3600) {
            throw ValidationError("--auto takes the seconds between steps, from more than 0 to 3600 (say --auto 3)")
        }
    }

    func run() throws {
        // Read by the terminal adapter as it opens, as NO_COLOR is.
        if highContrast { setenv("CHRYSALIS_HIGH_CONTRAST", "1", 1) }
        let outcome: ConsoleApp.Outcome
        do {
            // Refuse before drawing anything: another process is migrating this store.
            if let holder = StoreLock.holder(of: options.store) {
                throw StoreLock.lockedError(store: options.store, holder: holder)
            }
            // Said before any work, and said true: a pipe is not a terminal, whatever TERM says.
            if let missing = Self.missingTerminal() {
                StandardStreams.err(
                    """
                    error: \(missing); the console draws on a terminal. Without one, \
                    `\(TerminalText.visible(Self.sameMigration(CommandLine.arguments)))` runs the same plan and \
                    prints its progress\n
                    """
                )
                throw ExitCode(1)
            }
            try PersistentStore.recoverInterruptedTransaction(at: options.store)
            guard let result = try open() else {
                throw MigrationError(
                    .notWritable,
                    "the terminal could not be opened (\(ProcessInfo.processInfo.environment["TERM"] ?? "no TERM"))",
                    fix: "set TERM to your terminal's type, or run `chrysalis migrate` instead; nothing was changed")
            }
            outcome = result
        } catch let error as ValidationError {
            throw error
        } catch let exit as ExitCode {
            throw exit
        } catch {
            fail(error)
        }
        try outcome.finish()
    }
}

extension ConsoleApp.Outcome {
    /// Prints how the console ended (after the terminal is restored) and sets the exit status.
    package func finish() throws {
        switch self {
        case .quit: return
        case .migrated(let summary): print(TerminalText.visible(summary))
        case .failed(let message):
            StandardStreams.err("error: \(TerminalText.visible(message))\n")
            throw ExitCode(1)
        case .cancelled:
            StandardStreams.err("cancelled: the store is as it was\n")
            throw ExitCode(3)
        case .hungUp:
            throw ExitCode(129)
        }
    }
}

extension ConsoleCommand {
    /// Opens the console: its first frame at once, the bundle and the plan worked out behind
    /// it; what --verbose logs goes to its live log (`v`), never over its screen. Nil when the
    /// terminal could not be opened.
    private func open() throws -> ConsoleApp.Outcome? {
        let command = self, cancellation = CancellationToken()
        let log = DebugLog.isOn ? ConsoleLogFeed() : nil
        return try DebugLog.routed(to: log) {
            try ConsoleApp.run(
                store: options.store,
                opening: {
                    let (bundle, plan, blocked) = try command.browse()
                    return ConsoleApp.Opening(bundle: bundle, plan: plan, blocked: blocked)
                },
                options: Registration.current.options(cancellation: cancellation),
                stepMode: step || autoAdvance != nil, startImmediately: start || step || autoAdvance != nil,
                autoAdvance: autoAdvance, showcase: { done, _ in try StepSamples.tables(done) }, log: log)
        }
    }

    /// What a terminal needs that this process lacks, said for people; nil when it has a terminal.
    static func missingTerminal() -> String? {
        if isatty(STDOUT_FILENO) != 1 { return "standard output is not a terminal (a pipe or a file)" }
        if isatty(STDIN_FILENO) != 1 { return "standard input is not a terminal" }
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        if term.isEmpty { return "TERM is not set" }
        if term == "dumb" { return "TERM is dumb: the terminal cannot place text" }
        return nil
    }
}

extension ConsoleCommand {
    /// The bundle and plan to open on, and why the plan cannot run, when it cannot: a console
    /// is for looking first, so it opens whatever the plan says and refuses only `m`. It
    /// migrates to a target the user named, never to a guess.
    private func browse() throws -> (ModelBundle, MigrationPlan, Blocked?) {
        let (bundle, plan, blocked) = try options.browse()
        guard blocked == nil else { return (bundle, plan, blocked) }
        do {
            try MigrateCommand.requireNamedTarget(bundle, options: options)
        } catch {
            return (bundle, plan, Blocked(reason: "\(error)"))
        }
        return (bundle, plan, nil)
    }

    /// The `chrysalis migrate` command line that runs the plan this console command would, to
    /// paste: the same arguments, quoted for a shell, without the console's own flags.
    static func sameMigration(_ arguments: [String]) -> String {
        var words = ["chrysalis", "migrate"]
        // The subcommand is the first word after the program.
        var rest = arguments.dropFirst(arguments.dropFirst().first == "console" ? 2 : 1)[...]
        while let word = rest.popFirst() {
            switch word {
            case "--step", "--start": continue
            case "--auto": _ = rest.popFirst()
            case _ where word.hasPrefix("--auto="): continue
            default: words.append(shellQuoted(word))
            }
        }
        return words.joined(separator: " ")
    }

    /// `word` as a shell reads it back: as it is when it holds nothing a shell treats specially.
    private static func shellQuoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "-_./=:,+@%".unicodeScalars.contains($0)
        }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
