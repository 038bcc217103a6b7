import Foundation
import XCTest

/// What is Linux's own stays behind one seam per concern (DESIGN §1), so that a port is one file
/// each: extended attributes in `FilePermissions.swift`, `/proc` in `StoreHolders.swift`. A file
/// outside its seam that names one fails here, with its name.
final class PlatformSeamTests: XCTestCase {
    private let sources = Repository.sources

    /// Each Linux-only concern: what names it in code, and the one file allowed to.
    static let seams: [(concern: String, patterns: [String], file: String)] = [
        ("extended attributes", ["import CXattr", "getxattr(", "setxattr(", "listxattr("], "FilePermissions.swift"),
        ("/proc", ["\"/proc"], "StoreHolders.swift"),
    ]

    func testEveryLinuxOnlyConcernLivesInItsOneFile() throws {
        let files =
            FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        XCTAssertGreaterThan(files.count, 100, "the premise: the sources are read")
        for seam in Self.seams {
            var namers: [String] = []
            for file in files {
                // Doc comments may say what a seam is for; code may not reach past it.
                let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                    .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
                if seam.patterns.contains(where: code.contains) { namers.append(file.lastPathComponent) }
            }
            XCTAssertEqual(namers, [seam.file], "\(seam.concern) is named only in \(seam.file)")
        }
    }
}
