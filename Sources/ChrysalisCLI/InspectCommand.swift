import ArgumentParser
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// `chrysalis inspect STORE`: what a store is, holds, and which model version it is at.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's file facts, metadata, entities with row counts, and model version.",
        discussion: """
            The store is opened read-only and never written (a WAL store is read through its -wal). \
            With --model, the store's entity hashes are matched against every version of the bundle; \
            when none matches, the model the store archived in Z_MODELCACHE is used instead, and the \
            nearest version and the entities that differ are shown.

            \(ExitStatus.help("inspect"))

            Examples:
              chrysalis inspect Books.sqlite --model Books.xcdatamodeld
              chrysalis inspect Books.sqlite --json | jq '.entities[] | {name, rows}'
            """
    )

    @Argument(help: "The store file (.sqlite or any extension).", completion: .file())
    var store: String

    @Option(
        name: .long, help: "The model bundle to match the store against (.xcdatamodeld, .xcdatamodel or .momd).",
        completion: .directory)
    var model: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        do {
            let bundle = try model.map { try ModelPath.load($0).requireBundle() }
            let path = StorePath.resolved(store)
            var report = InspectReport(try StoreInspection.inspect(path, bundle: bundle), bundleName: bundle?.name)
            report.interruptedMigration = MigrationRunner.pendingRecovery(store: path)
            print(json ? try report.json() : TerminalText.visible(report.text()), terminator: "")
        } catch {
            fail(error)
        }
    }
}
