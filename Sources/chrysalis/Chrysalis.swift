import ArgumentParser
import Foundation

/// The `chrysalis` command: Core Data model versioning and store migration for Linux.
@main
struct Chrysalis: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    /// Like ArgumentParser's own, but a usage error exits with status 2, as Unix tools do.
    static func main() {
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
