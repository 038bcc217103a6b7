import Foundation

/// The `.xccurrentversion` plist of an `.xcdatamodeld`, and the fallback when it says nothing.
enum CurrentVersion {
    static let fileName = ".xccurrentversion"
    static let key = "_XCCurrentVersionName"

    /// The current version's name. Missing file or empty dict: the only version, else the one
    /// named like the bundle, else an error listing the versions.
    static func resolve(in bundle: URL, bundleName: String, versionNames: [String]) throws -> String {
        let file = bundle.appendingPathComponent(fileName)
        let listed = versionNames.sorted(by: VersionName.precedes).map { "\"\($0)\"" }.joined(separator: ", ")
        if let data = FileManager.default.contents(atPath: file.path) {
            guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil),
                  let dictionary = plist as? [String: Any] else {
                throw ModelFileError(file: file.path, problem: "is not a property list dictionary",
                                     fix: "choose the current version again in Xcode, or delete the file")
            }
            if let folder = dictionary[key] as? String {
                let name = folder.hasSuffix(".xcdatamodel") ? String(folder.dropLast(".xcdatamodel".count)) : folder
                guard versionNames.contains(name) else {
                    throw ModelFileError(file: file.path, problem: "names current version \"\(name)\", which is not in the bundle (versions: \(listed))",
                                         fix: "set \(key) to one of the versions")
                }
                return name
            }
        }
        if versionNames.count == 1 { return versionNames[0] }
        if versionNames.contains(bundleName) { return bundleName }
        throw ModelFileError(file: bundle.path, problem: "does not say which version is current and none is named \"\(bundleName)\" (versions: \(listed))",
                             fix: "write \(fileName) with \(key) = \"<version>.xcdatamodel\" (Xcode: Model Version in the inspector)")
    }

    /// Writes the plist Xcode writes.
    static func write(_ name: String, in bundle: URL) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: [key: name + ".xcdatamodel"], format: .xml, options: 0)
        try data.write(to: bundle.appendingPathComponent(fileName), options: .atomic)
    }
}
