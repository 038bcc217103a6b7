import Foundation

/// The `.xccurrentversion` plist of an `.xcdatamodeld`, and the fallback when it says nothing.
enum CurrentVersion {
    static let fileName = ".xccurrentversion"
    static let key = "_XCCurrentVersionName"

    /// The current version's name, and what a person should know when the bundle does not name
    /// one of its versions. Missing file or empty dict: the only version, else the one named like
    /// the bundle, else the last in name order. A name the bundle lacks: the same fallback.
    ///
    /// Evidence: bundles apps shipped name no current version (DashWallet: an empty dict, its
    /// versions `BreadWallet` and `BreadWallet 2` named after the app it forked) or one the bundle
    /// lacks (a version folder renamed after the plist was written); Xcode compiles both. Which
    /// version Xcode then takes is not documented: Chrysalis takes the newest by name, says so,
    /// and `--to` names another.
    static func resolve(in bundle: URL, bundleName: String, versionNames: [String]) throws -> (
        name: String, finding: ModelFinding?
    ) {
        let file = bundle.appendingPathComponent(fileName)
        let ordered = versionNames.sorted(by: VersionName.precedes)
        let listed = ordered.map { "\"\($0)\"" }.joined(separator: ", ")
        var named: String?
        if let data = FileManager.default.contents(atPath: file.path) {
            guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil),
                let dictionary = plist as? [String: Any]
            else {
                throw ModelFileError(
                    file: file.path, problem: "is not a property list dictionary",
                    fix: "choose the current version again in Xcode, or delete the file")
            }
            if let folder = dictionary[key] as? String {
                let name = folder.hasSuffix(".xcdatamodel") ? String(folder.dropLast(".xcdatamodel".count)) : folder
                if versionNames.contains(name) { return (name, nil) }
                named = name
            }
        }
        if versionNames.count == 1 && named == nil { return (versionNames[0], nil) }
        if versionNames.contains(bundleName) && named == nil { return (bundleName, nil) }
        let chosen = versionNames.contains(bundleName) ? bundleName : ordered[ordered.count - 1]
        let problem =
            named.map { "names current version \"\($0)\", which is not in the bundle (versions: \(listed))" }
            ?? "does not say which version is current and none is named \"\(bundleName)\" (versions: \(listed))"
        let finding = ModelFinding(
            ModelProblem(
                entity: bundleName, message: "\(problem); Chrysalis takes \"\(chosen)\" as current",
                fix: "choose the current version in Xcode (Model Version in the inspector), or name one with --to",
                verdict: .warning),
            file: named == nil && FileManager.default.fileExists(atPath: file.path) == false ? bundle.path : file.path)
        return (chosen, finding)
    }

    /// Writes the plist Xcode writes.
    static func write(_ name: String, in bundle: URL) throws {
        let data = try PropertyListSerialization.data(
            fromPropertyList: [key: name + ".xcdatamodel"], format: .xml, options: 0)
        try data.write(to: bundle.appendingPathComponent(fileName), options: .atomic)
    }
}
