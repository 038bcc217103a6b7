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
    let line = (error as? MigrationError)?.state == nil && touchingNothing ? unchangedStore(error) : "\(error)"
    StandardStreams.err("error: \(TerminalText.visible(line))\n")
    if JSONOutput.requested {
        StandardStreams.out(
            JSONOutput.errorEvent(line, state: (error as? MigrationError)?.state?.name ?? "unchanged", status: 1))
    }
    exit(1)
}

/// `error` said with "the store was not changed" where a state goes, before its fix
/// (`…; the store was not changed. Fix: …`), as a migration error words its state: the fix is
/// the last thing a reader acts on, not a sentence the state runs into.
package func unchangedStore(_ error: Error) -> String {
    let text = "\(error)", said = "; the store was not changed"
    guard let fix = text.range(of: ". Fix: ") else { return text + said }
    return text[..<fix.lowerBound] + said + text[fix.lowerBound...]
}
