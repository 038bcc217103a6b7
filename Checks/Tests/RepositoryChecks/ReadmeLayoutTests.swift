import Foundation
import XCTest

/// The README's "Layout" table is how a newcomer finds a concept: it must follow the tree.
/// Every module folder has a row, every file or folder a row names exists under its path, and
/// every benchmark scenario is named.
final class ReadmeLayoutTests: XCTestCase {
    private let root = Repository.root

    /// The table's rows: each path and what the row says about it.
    private func rows() throws -> [(path: String, what: String)] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try XCTUnwrap(readme.components(separatedBy: "## Layout\n").last)
        return section.split(separator: "\n").filter { $0.hasPrefix("| `") }.flatMap { line -> [(String, String)] in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let paths = cells[1].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            }
            return paths.map { ($0, cells[2]) }
        }
    }

    /// Every name in backquotes that reads as a Swift type or folder (`StoreConnection`, `Planning`).
    private func names(in text: String) throws -> [String] {
        let expression = try NSRegularExpression(pattern: "`([A-Z][a-z]+[A-Za-z]*)`")
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// Every file and folder name under `path`, `.swift` dropped.
    private func tree(_ path: String) -> Set<String> {
        let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(path).path)
        var names: Set<String> = []
        while let item = enumerator?.nextObject() as? String {
            let name = (item as NSString).lastPathComponent
            names.insert(name.hasSuffix(".swift") ? String(name.dropLast(6)) : name)
        }
        return names
    }

    func testEveryModuleHasARowAndEveryNamedFileExists() throws {
        let rows = try rows()
        let modules = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
        for module in modules where !module.hasPrefix(".") {
            XCTAssertTrue(
                rows.contains { $0.path == "Sources/\(module)" }, "the Layout table has a row for Sources/\(module)")
        }
        let package = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for row in rows {
            let files = tree(row.path)
            for name in try names(in: row.what) where !package.contains("\"\(name)\"") {
                XCTAssertTrue(
                    files.contains(name), "\(row.path)'s row names \(name), which is no file or folder under it")
            }
        }
    }

    func testEveryBenchmarkScenarioIsNamed() throws {
        let benchmarks = try XCTUnwrap(try rows().first { $0.path == "Benchmarks/" }).what
        let expression = try NSRegularExpression(pattern: #"\bname(?:: | = )"([a-z-]+)""#)
        var scenarios: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Benchmarks").path)
        where file.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent("Benchmarks/\(file)"), encoding: .utf8)
            scenarios += expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                Range($0.range(at: 1), in: text).map { String(text[$0]) }
            }
        }
        XCTAssertTrue(
            scenarios.contains("policy-lookups") && scenarios.contains("wire-upgrade"),
            "scenarios found in Benchmarks/: \(scenarios)")
        for scenario in scenarios {
            XCTAssertTrue(benchmarks.contains("`\(scenario)`"), "the Benchmarks row names the scenario \(scenario)")
        }
    }
}
