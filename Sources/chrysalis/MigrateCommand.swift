import ArgumentParser
import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// `chrysalis migrate STORE --model BUNDLE --mapping FILE…`: one migration step with mapping
/// models, run headless with a progress line.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to the next model version with one or more mapping models.",
        discussion: """
        The store's version is found from its entity hashes; the mapping models say where it goes. \
        Several --mapping options run as passes into one destination, in the order given. The \
        migration writes a new store beside the source, verifies it, then swaps it in and keeps \
        the source as Name~.sqlite. On any error or Ctrl-C nothing changes.

        Policies named in mapping models must be registered; this build registers the demos' \
        policies (PublicationToPublicationMigrationPolicy, MHWBookToBookPolicy, MHWUserToUserPolicy).

        Example (the objc.io store, Model2 → Model3 in two passes):
          chrysalis migrate Books.sqlite --model Model.xcdatamodeld \\
            --mapping Model2_to_Model3_User.xcmappingmodel --mapping Model2_to_Model3.xcmappingmodel
        """
    )

    @Argument(help: "The store to migrate.", completion: .file())
    var store: String

    @Option(help: "The model bundle (.xcdatamodeld or .momd).", completion: .directory)
    var model: String

    @Option(help: "A mapping model (.xcmappingmodel or .mapping.yaml); repeat for several passes.", completion: .file())
    var mapping: [String] = []

    @Flag(help: "Print progress and the result as JSON lines.")
    var json = false

    func validate() throws {
        guard !mapping.isEmpty else { throw ValidationError("give at least one --mapping file") }
    }

    func run() throws {
        do {
            let bundle = try ModelPath.load(model).requireBundle()
            let mappings = try mapping.map(MappingFile.read)
            let metadata = try PersistentStore.open(at: store).metadata()
            guard let source = bundle.version(for: metadata) else {
                throw MigrationError(.wrongModel, "\(store) is not at any version of \(bundle.name)",
                                     fix: "run `chrysalis inspect \(store) --model \(model)` to see how it differs")
            }
            let target = mappings[0].destinationVersion
            guard let destination = bundle.version(named: target) else {
                throw MigrationError(.wrongModel, "mapping \(mappings[0].name) goes to \(target), which \(bundle.name) does not have")
            }
            let cancellation = CancellationToken()
            let interrupt = SignalCancellation(token: cancellation)
            let printer = ProgressPrinter(json: json)
            let report = try MappingMigration.run(store: store, from: source, to: destination, mappings: mappings,
                                                  options: MigrationOptions(policies: DemoResources.policies, cancellation: cancellation,
                                                                            configureManager: BookStoreSynopsis.install))
            withExtendedLifetime((printer, interrupt)) {}
            print(summary(report))
        } catch {
            fail(error)
        }
    }

    private func summary(_ report: MigrationReport) -> String {
        var lines = ["Migrated \(report.store) from \(report.sourceVersion) to \(report.destinationVersion) in \(String(format: "%.2f", report.duration)) s (\(report.passes.joined(separator: ", ")))."]
        let entities = Set(report.rowsBefore.keys).union(report.rowsAfter.keys).sorted()
        for entity in entities {
            let before = report.rowsBefore[entity].map(String.init) ?? "—", after = report.rowsAfter[entity].map(String.init) ?? "—"
            lines.append("  \(entity.padding(toLength: 20, withPad: " ", startingAt: 0)) \(before) → \(after)")
        }
        if let backup = report.backup { lines.append("The source is kept as \(backup).") }
        return lines.joined(separator: "\n")
    }
}

/// Turns Ctrl-C (SIGINT) and a closed terminal (SIGHUP) into a cancellation: the migration stops
/// at its next chunk and rolls back instead of dying half way.
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
