import ArgumentParser
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// `chrysalis fixture`: a store at any version of any bundle, filled with generated rows.
struct FixtureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixture",
        abstract: "Make a store at a model version, filled with realistic generated rows.",
        discussion: """
            N rows per root entity, spread over each hierarchy's entities, with relationships, some \
            NULLs and edge cases. The same --seed gives the same store. Rows are written in chunks, \
            so memory stays flat however many you ask for.

            \(ExitStatus.help("fixture"))

            Example:
              chrysalis fixture BookStore.xcdatamodeld --version "BookStore 3" --rows 1000000 --out /tmp/big.sqlite
            """
    )

    @Argument(help: "The model bundle (.xcdatamodeld).", completion: .directory)
    var bundle: String

    @Option(help: "The version to make the store at (default: the current one).")
    var version: String?

    @Option(help: "Rows per root entity.")
    var rows: Int

    @Option(help: "The store to create (must not exist).", completion: .file())
    var out: String

    @Option(help: "The generator's seed.")
    var seed: UInt64 = 1

    /// More rows per root entity than any store this tool makes: keys, counts and progress
    /// totals stay far from Int64's end (9223372036854775807 rows crashed on the arithmetic).
    static let maximumRows = 1_000_000_000

    func validate() throws {
        guard rows >= 0, rows <= Self.maximumRows else {
            throw ValidationError("--rows must be between 0 and \(Self.maximumRows) (rows per root entity)")
        }
    }

    func run() throws {
        do {
            let bundle = try ModelPath.load(self.bundle).requireBundle()
            guard let target = bundle.version(named: version ?? bundle.currentVersionName) else {
                throw ModelFileError(
                    file: self.bundle, problem: "has no version \(version ?? "")",
                    fix: "use one of: \(bundle.versions.map(\.name).joined(separator: ", "))")
            }
            try target.requireStorable(for: "to make a store")
            let started = Date()
            let store = try PersistentStore.create(at: out, model: target.model)
            let roots = target.model.entities.filter { $0.parentName == nil }.count
            let counter = CounterLine()
            let cancellation = CancellationToken()
            let interrupt = SignalCancellation(token: cancellation)
            defer { interrupt.stop() }
            do {
                try DataGenerator(model: target.model, seed: seed).fill(store, rows: rows) {
                    counter.show("generating rows", $0, rows * roots)
                    try cancellation.check()
                }
                try store.close()
            } catch let error as MigrationError where error.kind == .cancelled {
                try? store.close()
                StoreFiles.remove(out)
                StandardStreams.err("\ncancelled: no store was made at \(out)\n")
                throw ExitCode(3)
            } catch {
                // A store cut off halfway is no fixture: nothing is left behind.
                try? store.close()
                StoreFiles.remove(out)
                throw error
            }
            let seconds = Date().timeIntervalSince(started)
            let total = rows * roots
            print(
                """
                Created \(TerminalText.visible(out)) at \(target.name): \(total) rows (\(rows) per root entity) in \
                \(String(format: "%.2f", seconds)) s, \(Int(Double(total) / max(seconds, 0.001))) rows/s.
                """
            )
        } catch let exit as ExitCode {
            throw exit
        } catch {
            fail(error)
        }
    }
}
