import Foundation

/// The `.xccurrentversion` plist of an `.xcdatamodeld`, and the fallback when it says nothing.
enum CurrentVersion {
    static let fileName = ".xccurrentversion"
    static let key = "_XCCurrentVersionName"

    /// What a finding about a guessed current version starts with.
    static let guessedPrefix = "the current version is a guess: "

    /// The current version's name; what a person should know when the bundle does not name one
    /// of its versions; and whether the name is a guess. A name `.xccurrentversion` gives, of a
    /// version the bundle has, is the current version; so is a bundle's only version. Otherwise
    /// (no file, an empty dict, a name the bundle lacks) no file says, and Chrysalis guesses the
    /// last version by name, says so every time, and `migrate` goes to a guess only when `--to`
    /// names it.
    ///
    /// Evidence: Xcode keeps the current version in the project file (`XCVersionGroup`'s
    /// `currentVersion`) and writes `.xccurrentversion` from it; what its model compiler takes
    /// when the file names nothing is documented nowhere, and tools disagree (XcodeGen: the last
    /// by name; CocoaPods' Xcodeproj: the last on disk; tuist: an error). The version named like
    /// the bundle is no answer: Xcode's "Add Model Version" names new versions `Name 2`, `Name 3`,
    /// so it is usually the first. Fearless's `UserDataModel.xcdatamodeld` (an empty dict) holds
    /// `UserDataModel`, the app's first release, beside `MultiassetUserDataModel…_v11`, its newest;
    /// taking the first made `migrate` drop the rows of seven entities "to the current version".
    /// DashWallet's (an empty dict too) holds `BreadWallet` and `BreadWallet 2`, and the app's code
    /// reads entities only `BreadWallet 2` has.
    static func resolve(in bundle: URL, bundleName: String, versionNames: [String]) throws -> (
        name: String, finding: ModelFinding?, guessed: Bool
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
                if versionNames.contains(name) { return (name, nil, false) }
                named = name
            }
        }
        if versionNames.count == 1 && named == nil { return (versionNames[0], nil, false) }
        let chosen = ordered[ordered.count - 1]
        let problem =
            named.map { "\(fileName) names \"\($0)\", which is not in the bundle (versions: \(listed))" }
            ?? (FileManager.default.fileExists(atPath: file.path)
                ? "\(fileName) names no version (versions: \(listed))"
                : "the bundle has no \(fileName) (versions: \(listed))")
        let finding = ModelFinding(
            ModelProblem(
                entity: bundleName,
                message: "\(guessedPrefix)\(problem); Chrysalis takes \"\(chosen)\", the last by name",
                fix:
                    """
                    choose the current version in Xcode (Model Version in the inspector), state the order of \
                    versions in \(bundleName).xcdatamodeld.order beside the bundle, or name the target with --to
                    """,
                verdict: .warning),
            file: FileManager.default.fileExists(atPath: file.path) ? file.path : bundle.path)
        return (chosen, finding, versionNames.count > 1)
    }

    /// Writes the plist Xcode writes.
    static func write(_ name: String, in bundle: URL) throws {
        let data = try PropertyListSerialization.data(
            fromPropertyList: [key: name + ".xcdatamodel"], format: .xml, options: 0)
        try data.write(to: bundle.appendingPathComponent(fileName), options: .atomic)
    }
}
