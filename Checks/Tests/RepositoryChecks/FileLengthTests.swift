import Foundation
import XCTest

/// No Swift file the package ships (Sources, Benchmarks, Examples) is longer than 400 lines: a
/// longer file holds more than one concept, and each deserves a file a newcomer can find by name
/// (an extension of a type by concern lives in `Type+Concern.swift`).
final class FileLengthTests: XCTestCase {
    static let longest = 400

    func testNoShippedFileIsLongerThanFourHundredLines() throws {
        var long: [String] = []
        for folder in ["Sources", "Benchmarks", "Examples"] {
            let base = Repository.root.appendingPathComponent(folder)
            let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
            while let file = enumerator?.nextObject() as? URL {
                if file.lastPathComponent == ".build" { enumerator?.skipDescendants(); continue }
                guard file.pathExtension == "swift" else { continue }
                let lines = try String(contentsOf: file, encoding: .utf8).split(
                    separator: "\n", omittingEmptySubsequences: false
                ).count
                if lines > Self.longest { long.append("\(folder)/\(file.lastPathComponent): \(lines) lines") }
            }
        }
        XCTAssertFalse(
            (try? FileManager.default.contentsOfDirectory(atPath: Repository.sources.path))?.isEmpty ?? true,
            "the check reads the package's Sources")
        XCTAssertTrue(
            long.isEmpty,
            "files over \(Self.longest) lines; split each by concept:\n" + long.sorted().joined(separator: "\n"))
    }
}
