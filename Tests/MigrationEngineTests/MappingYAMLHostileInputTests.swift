import Foundation
import MigrationEngine
import XCTest

/// Found by the full fuzz run (``MappingAndExpressionFuzzTests``): 50,000 nested `? ` keys in a
/// 200 KB mapping file overflowed the stack inside Yams, which builds nodes recursively. Nesting
/// is now measured first, from libyaml's events, and refused past 64 levels.
final class MappingYAMLHostileInputTests: XCTestCase {
    static let header = "source: BookStore 3\ndestination: BookStore 4\nentityMappings:\n"

    func testDeepNestingIsRefusedWithItsLineInsteadOfOverflowingTheStack() {
        // Block nesting (`? ? ? …`, `- - - …`) at the start of line 4, flow nesting inside a value on line 5.
        let cases = [Self.header + String(repeating: "? ", count: 50_000) + "x\n", Self.header + String(repeating: "- ", count: 50_000) + "x\n",
                     Self.header + "  - name: A\n    userInfo: " + String(repeating: "[", count: 100_000) + "\n",
                     Self.header + "  - name: A\n    userInfo: " + String(repeating: "{a: ", count: 50_000) + "x\n"]
        for (text, line) in zip(cases, [4, 4, 5, 5]) {
            XCTAssertThrowsError(try MappingYAMLReader.read(text, name: "Deep", file: "Deep.mapping.yaml")) { error in
                let error = error as? MappingError
                XCTAssertEqual(error?.problem, "lists and mappings are nested more than 64 deep", "\(String(describing: error))")
                XCTAssertEqual(error?.line, line)
            }
        }
    }

    func testOrdinaryNestingStillReads() throws {
        let nested = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let mapping = try MappingYAMLReader.read(Self.header + "  - name: A\n    source: Page\n    destination: Page\n    userInfo: {deep: \(nested)}\n",
                                                 name: "Nested", file: "Nested.mapping.yaml")
        XCTAssertEqual(mapping.entityMappings.map(\.name), ["A"])
        XCTAssertThrowsError(try MappingYAMLReader.read("", name: "Empty", file: "Empty.mapping.yaml"), "an empty file is still an error")
    }
}
