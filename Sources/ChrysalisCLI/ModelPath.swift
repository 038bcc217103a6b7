import Foundation
import MigrationEngine
import ObjectModel

/// A model given on the command line: an `.xcdatamodeld`, one `.xcdatamodel` version, or a
/// compiled `.momd` (whose `.mom` files may be missing, leaving only hashes).
enum ModelPath {
    case bundle(ModelBundle)
    case hashesOnly(CompiledModelBundle)

    static func load(_ path: String) throws -> ModelPath {
        let url = URL(fileURLWithPath: path)
        switch url.pathExtension {
        case "momd":
            let compiled = try CompiledModelBundle.read(at: url)
            return compiled.modelBundle.map(ModelPath.bundle) ?? .hashesOnly(compiled)
        case "xcdatamodel":
            // One version on its own, read as a bundle's version is: XML `contents`, or Xcode 3's
            // `elements` archive (XMPPFramework's `XMPPRoster.xcdatamodel` has only that).
            let name = url.deletingPathExtension().lastPathComponent
            let version = try ModelBundle.readVersion(at: url, name: name)
            return .bundle(ModelBundle(name: name, versions: [version], currentVersionName: name))
        default:
            return .bundle(try ModelBundle.read(at: url))
        }
    }

    /// The bundle, or an error saying why a hashes-only `.momd` is not enough.
    func requireBundle() throws -> ModelBundle {
        switch self {
        case .bundle(let bundle): return bundle
        case .hashesOnly(let compiled):
            throw ModelFileError(
                file: compiled.name + ".momd", problem: "has no .mom files, only hashes",
                fix: "give the .xcdatamodeld, or a .momd with its .mom files")
        }
    }
}

/// Prints a failure as one line on standard error and exits with status 1. `touchingNothing`:
/// the command read a store and never writes one, and says so.
package func fail(_ error: Error, touchingNothing: Bool = false) -> Never {
    let state = (error as? MigrationError)?.state == nil && touchingNothing ? "; the store was not changed" : ""
    StandardStreams.err("error: \(TerminalText.visible("\(error)"))\(state)\n")
    if JSONOutput.requested {
        StandardStreams.out(
            JSONOutput.errorEvent(
                "\(error)\(state)", state: (error as? MigrationError)?.state?.name ?? "unchanged", status: 1))
    }
    exit(1)
}
