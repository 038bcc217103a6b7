import ArgumentParser
import Foundation
import MigrationEngine

/// The `chrysalis` command line: Core Data model versioning and store migration for Linux, as a
/// library, so that an app's own build of it can register the app's custom entity migration
/// policies (which its mapping models name by class) — the one thing a plain `chrysalis` cannot
/// know. The `chrysalis` executable is this with nothing registered.
///
/// ```swift
/// import ChrysalisCLI
///
/// var policies = PolicyRegistry()
/// policies.register("MHWBookToBookPolicy") { BookToBookPolicy() }
/// Chrysalis.main(policies: policies)
/// ```
public struct Chrysalis: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "chrysalis",
        abstract: "Core Data model versioning and SQLite store migration for Linux.",
        discussion: """
        Chrysalis reads Xcode model bundles (.xcdatamodeld) and Core Data SQLite stores, and \
        computes the same version hashes Core Data computes, so it can tell which model version a \
        store was written with.

        Start with:
          chrysalis model Model.xcdatamodeld         versions, entities, hashes
          chrysalis model Model.xcdatamodeld --json  the same, for scripts
          chrysalis inspect App.sqlite --model Model.xcdatamodeld
                                                     rows, hashes, model version
        """,
        subcommands: [DemoCommand.self, ConsoleCommand.self, ModelCommand.self, InspectCommand.self, MappingCommand.self, PlanCommand.self, MigrateCommand.self, RecoverCommand.self, FixtureCommand.self]
    )

    public init() {}

    /// Runs the command line with `policies` registered (by the names mapping models use, bare or
    /// module-qualified) and `configureManager` customising each mapping pass's manager (Core
    /// Data's custom `NSMigrationManager`): `plan` checks the policies, `migrate` and `console`
    /// run with them. The demos' own policies are only ever used by `chrysalis demo`.
    public static func main(policies: PolicyRegistry, configureManager: ((MigrationManager) throws -> Void)? = nil) {
        Registration.current = Registration(policies: policies, configureManager: configureManager)
        main()
    }

    /// Runs the command line with nothing registered. Like ArgumentParser's own, but a usage error
    /// exits with status 2, as Unix tools do.
    public static func main() {
        DebugLog.bootstrap()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
