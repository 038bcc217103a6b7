import Foundation
import ObjectModel
import XCTest

/// One version, from one source: every executable's `--version` prints `ChrysalisVersion.current`,
/// and the README's word on tagging a release names it.
final class VersionTests: XCTestCase {
    func testEveryExecutablePrintsTheOneVersion() throws {
        for executable in ["chrysalis", "chrysalis-demos"] {
            let result = try ChrysalisRunner.run(["--version"], executable: executable)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stdout, ChrysalisVersion.current + "\n", executable)
        }
        let parts = ChrysalisVersion.current.split(separator: ".")
        XCTAssertEqual(parts.count, 3, "major.minor.patch")
        XCTAssertTrue(parts.allSatisfy { Int($0) != nil }, ChrysalisVersion.current)
    }

    func testTheReadmeSaysHowAReleaseIsTagged() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        XCTAssertTrue(readme.contains("git tag v\(ChrysalisVersion.current)"), "README names the tag of this version")
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("LICENSE").path))
    }
}
