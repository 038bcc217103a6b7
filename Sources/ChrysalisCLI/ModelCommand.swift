import ArgumentParser
import Foundation
import ObjectModel

/// `chrysalis model BUNDLE`: what a model bundle holds and the hashes Core Data would compute.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show a model bundle's versions, entities, version hashes, digest and checksum.",
        discussion: """
            BUNDLE is an Xcode model bundle (Model.xcdatamodeld), one of its versions \
            (Model 2.xcdatamodel), or a compiled bundle from an app (Model.momd).

            The hashes are the ones Core Data stores in a store's metadata \
            (NSStoreModelVersionHashes): a store is at a version when every entity hash matches.

            \(ExitStatus.help("model"))

            Examples:
              chrysalis model Books.xcdatamodeld
              chrysalis model Books.xcdatamodeld --json | jq '.versions[].checksum'
            """
    )

    @Argument(help: "The .xcdatamodeld, .xcdatamodel or .momd to describe.", completion: .directory)
    var bundle: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        do {
            let report: ModelReport
            switch try ModelPath.load(bundle) {
            case .bundle(let bundle): report = ModelReport(bundle)
            case .hashesOnly(let compiled): report = ModelReport(compiled)
            }
            print(json ? try report.json() : TerminalText.visible(report.text()), terminator: "")
        } catch {
            fail(error)
        }
    }
}
