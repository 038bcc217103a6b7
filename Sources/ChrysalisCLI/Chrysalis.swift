import ArgumentParser
import Foundation
import MigrationEngine
import ObjectModel

/// The `chrysalis` command line: Core Data model versioning and store migration for Linux, as a
/// library, so that an app's own build of it can register the app's custom entity migration
/// policies (which its mapping models name by class) — the one thing a plain `chrysalis` cannot
/// know. The `chrysalis` executable is this with nothing registered and one command more,
/// `chrysalis demo`, which lives in that executable so that no app's build links the demos.
///
/// ```swift
/// import ChrysalisCLI
///
/// var policies = PolicyRegistry()
/// policies.register("MHWBookToBookPolicy") { BookToBookPolicy() }
/// Chrysalis.main(policies: policies)
/// ```
public struct Chrysalis: ParsableCommand {
    /// The command line: its name, its help and its commands (with the ones the executable adds first).
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "chrysalis",
            abstract: "Core Data model versioning and SQLite store migration for Linux.",
            discussion: """
                Chrysalis migrates Core Data SQLite stores from one model version to another on Linux, as \
                Core Data does on Apple platforms: it reads Xcode model bundles (.xcdatamodeld) and mapping \
                models, tells a store's version from the hashes Core Data wrote into it, infers lightweight \
                steps and runs them in place with SQL, runs mapping models through the three stages, and \
                keeps the original until the whole plan is done.

                Start with:
                \(demoLine)  chrysalis inspect App.sqlite --model App.xcdatamodeld
                                                  rows, hashes, the store's version
                  chrysalis plan App.sqlite --model App.xcdatamodeld
                                                  the steps, why, and what they change
                  chrysalis migrate App.sqlite --model App.xcdatamodeld
                                                  migrate it (the original kept as App~.sqlite)
                  chrysalis console App.sqlite --model App.xcdatamodeld
                                                  the same, watched and driven in a console
                """,
            version: ChrysalisVersion.current,
            subcommands: Invocation.current.leadingCommands + [
                ConsoleCommand.self, ModelCommand.self, InspectCommand.self, MappingCommand.self, PlanCommand.self,
                MigrateCommand.self, RecoverCommand.self, FixtureCommand.self, CheckHistoryCommand.self,
            ]
        )
    }

    /// The help's first suggestion, when a `demo` command is there to suggest.
    private static var demoLine: String {
        Invocation.current.leadingCommands.contains { $0.configuration.commandName == "demo" }
            ? "  chrysalis demo                  a worked example, migrated live\n" : ""
    }

    /// The command line with no arguments parsed yet (what `ParsableCommand` makes).
    public init() {}

    /// Runs the command line with `policies` registered (by the names mapping models use, bare or
    /// module-qualified) and `configureManager` customising each mapping pass's manager (Core
    /// Data's custom `NSMigrationManager`): `plan` checks the policies, `migrate` and `console`
    /// run with them. The demos' own policies are only ever used by `chrysalis demo`.
    ///
    /// - Parameters:
    ///   - arguments: The arguments to parse, without the executable's name; the process's own
    ///     when nil.
    ///   - policies: The app's entity migration policies.
    ///   - configureManager: Customises each mapping pass's manager, as a custom `NSMigrationManager` would.
    ///   - stages: The app's staged migration (its stages and their handlers), which `--strategy staged` runs.
    public static func main(
        _ arguments: [String]? = nil,
        policies: PolicyRegistry = PolicyRegistry(),
        configureManager: (@Sendable (MigrationManager) throws -> Void)? = nil,
        stages: StagedMigration? = nil
    ) {
        run(
            arguments,
            Registration(policies: policies, configureManager: configureManager, stages: stages), leading: [])
    }

    /// A path is bytes, and Swift reads a command line as text, putting U+FFFD where bytes are
    /// not UTF-8: such a name would lead the tool to another file, or to none with a false
    /// cause. Refused up front, naming the argument with its bytes shown.
    private static func requireTextArguments() {
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil else {
                continue
            }
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: strlen(argument))
            let shown = bytes.map {
                $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : String(format: "\\x%02x", $0)
            }.joined()
            StandardStreams.err(
                """
                error: argument \(index) (\(shown)) is not UTF-8 text: Chrysalis reads names as text, and this one \
                would name another file or none. Fix: give the file a name that is text (`mv`), or make a link \
                with such a name and give that\n
                """
            )
            Foundation.exit(2)
        }
    }

    /// Runs the command line with nothing registered and `commands` listed before the others:
    /// the `chrysalis` executable's `demo`.
    package static func main(leadingCommands commands: [any ParsableCommand.Type]) {
        run(nil, Registration(policies: PolicyRegistry(), configureManager: nil, stages: nil), leading: commands)
    }

    /// Runs the command line with nothing registered, on the process's arguments.
    public static func main() { main(nil) }

    /// Runs the command line on `arguments` (the process's own when nil) with `registration` and
    /// `leading` commands. Like ArgumentParser's own, but a usage error exits with status 2, as
    /// Unix tools do.
    private static func run(
        _ arguments: [String]?, _ registration: Registration, leading: [any ParsableCommand.Type]
    ) {
        StandardStreams.keepRunningOnFailedWrites()
        // A path is bytes: the process's own arguments are checked as bytes before Swift reads them as text.
        if arguments == nil { requireTextArguments() }
        Invocation.start(
            Invocation.State(
                arguments: arguments ?? Array(CommandLine.arguments.dropFirst()),
                executable: URL(fileURLWithPath: CommandLine.arguments.first ?? "chrysalis").lastPathComponent,
                registration: registration, leadingCommands: leading))
        if let refusal = OpenFileLimit.ensure() ?? AddressSpaceLimit.ensure() {
            StandardStreams.err("error: \(refusal)\n")
            if JSONOutput.requested { StandardStreams.out(JSONOutput.errorEvent("\(refusal)", status: 1)) }
            Foundation.exit(1)
        }
        do {
            try DebugLog.bootstrap(arguments: Invocation.current.arguments)
        } catch {
            // A usage error, said before any command runs.
            StandardStreams.err("error: \(error)\n")
            if JSONOutput.requested { StandardStreams.out(JSONOutput.errorEvent("\(error)", status: 2)) }
            Foundation.exit(2)
        }
        do {
            var command = try parseAsRoot(Invocation.current.arguments)
            try command.run()
        } catch {
            let code = exitCode(for: error)
            // Help goes to standard output, as ArgumentParser prints it.
            guard code != .success else { exit(withError: error) }
            // A command that ends with a status has said all it had to say.
            if let status = error as? ExitCode { Foundation.exit(status.rawValue) }
            // A message can carry a path, and a path's bytes can be escape sequences: shown, not obeyed.
            StandardStreams.err((TerminalText.visible(fullMessage(for: error)) + "\n"))
            let status = code == .validationFailure ? 2 : code.rawValue
            if JSONOutput.requested { StandardStreams.out(JSONOutput.errorEvent(message(for: error), status: status)) }
            Foundation.exit(status)
        }
    }
}
