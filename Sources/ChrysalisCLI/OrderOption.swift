import ArgumentParser
import Foundation
import ObjectModel

/// `--order`: the order of a bundle's versions as the app migrates through them, where names do
/// not give it. Core Data's automatic migration needs none; an iterative migrator does.
enum OrderOption {
    static let help = ArgumentHelp(
        "The order of the bundle's versions, oldest first: a file (one version a line) or A,B,C.",
        discussion:
            """
            A bundle records no order of its versions, and apps name theirs in code (a Swift enum of version \
            names, oldest first). Without --order, a file Name.xcdatamodeld.order beside the bundle states it; \
            without either, the order is the names' (Model < Model 2 < Model 10), and plans and checks that \
            rely on it say so. --strategy automatic needs no order.
            """)

    /// `bundle` in the order `order` states: the text of the file at that path, or the names it lists.
    static func apply(_ order: String?, to bundle: ModelBundle) throws -> ModelBundle {
        guard let order else { return bundle }
        var isDirectory: ObjCBool = false
        let isFile = FileManager.default.fileExists(atPath: order, isDirectory: &isDirectory) && !isDirectory.boolValue
        let text =
            isFile ? String(decoding: FileManager.default.contents(atPath: order) ?? Data(), as: UTF8.self) : order
        let source = isFile ? order : "--order"
        let names = try VersionOrder.names(in: text, file: source, versions: Set(bundle.versions.map(\.name)))
        return bundle.ordered(by: names, source: source)
    }
}
