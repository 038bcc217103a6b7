import Foundation

/// The repository these checks read: the folder above this file's that holds the root
/// `Package.swift` beside `Sources`. They run in the root package's `swift test` and, alone and
/// in seconds, in the package of their own around them (`swift test --package-path Checks`).
enum Repository {
    static let root: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let manager = FileManager.default
            if manager.fileExists(atPath: folder.appendingPathComponent("Package.swift").path),
                manager.fileExists(atPath: folder.appendingPathComponent("Sources").path)
            {
                return folder
            }
            folder.deleteLastPathComponent()
        }
        fatalError("no Package.swift beside Sources above \(#filePath)")
    }()

    /// `Sources/` of the root package.
    static var sources: URL { root.appendingPathComponent("Sources") }
}
