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
        let cases = [
            Self.header + String(repeating: "? ", count: 50_000) + "x\n",
            Self.header + String(repeating: "- ", count: 50_000) + "x\n",
            Self.header + "  - name: A\n    userInfo: " + String(repeating: "[", count: 100_000) + "\n",
            Self.header + "  - name: A\n    userInfo: " + String(repeating: "{a: ", count: 50_000) + "x\n",
        ]
        for (text, line) in zip(cases, [4, 4, 5, 5]) {
            XCTAssertThrowsError(try MappingYAMLReader.read(text, name: "Deep", file: "Deep.mapping.yaml")) { error in
                let error = error as? MappingError
                XCTAssertEqual(
                    error?.problem, "lists and mappings are nested more than 64 deep", "\(String(describing: error))")
                XCTAssertEqual(error?.line, line)
            }
        }
    }

    func testOrdinaryNestingStillReads() throws {
        // Forty levels pass the nesting check and reach the reader, which then says what is wrong
        // with the value itself: userInfo's values are text.
        let nested = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        XCTAssertThrowsError(
            try MappingYAMLReader.read(
                Self.header + "  - name: A\n    source: Page\n    destination: Page\n    userInfo: {deep: \(nested)}\n",
                name: "Nested", file: "Nested.mapping.yaml")
        ) { error in
            XCTAssertEqual(
                (error as? MappingError)?.problem, "userInfo's deep must be text, found a YAML list", "\(error)")
        }
        let mapping = try MappingYAMLReader.read(
            Self.header + "  - name: A\n    source: Page\n    destination: Page\n    userInfo: {deep: \"\(nested)\"}\n",
            name: "Nested", file: "Nested.mapping.yaml")
        XCTAssertEqual(mapping.entityMappings.map(\.name), ["A"])
        XCTAssertThrowsError(
            try MappingYAMLReader.read("", name: "Empty", file: "Empty.mapping.yaml"), "an empty file is still an error"
        )
    }

    // MARK: - Inputs that mislead (issue 29 §4): each an error naming the file and the line

    private func problem(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> MappingError? {
        do {
            _ = try MappingYAMLReader.read(Self.header + body, name: "Test", file: "Test.mapping.yaml")
            XCTFail("read without an error: \(body)", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual((error as? MappingError)?.file, "Test.mapping.yaml", file: file, line: line)
            return error as? MappingError
        }
    }

    func testAnEmptyValueExpressionIsRefusedNotTakenForTheDefault() {
        for value in ["~", "", "\"\"", "null"] {
            let error = problem("  - source: Page\n    destination: Page\n    attributes:\n      text: \(value)\n")
            XCTAssertEqual(error?.problem, "text has no value expression", "text: \(value)")
            XCTAssertEqual(error?.line, 7, "text: \(value)")
            XCTAssertTrue(error?.fix?.contains("write text: nil for no value") == true)
        }
        XCTAssertNoThrow(
            try MappingYAMLReader.read(
                Self.header + "  - source: Page\n    destination: Page\n    attributes:\n      text: nil\n",
                name: "Test", file: "Test.mapping.yaml"), "nil is the expression for no value")
    }

    func testAKeyGivenTwiceIsRefusedWithBothLines() {
        let error = problem(
            "  - source: Page\n    destination: Page\n    attributes:\n      text: $source.text\n      text: '\"x\"'\n")
        XCTAssertEqual(error?.problem, "the key \"text\" is given twice (first on line 7)")
        XCTAssertEqual(error?.line, 8)
        XCTAssertNotNil(
            problem("  - source: Page\n    source: Book\n    destination: Page\n"), "in an entity mapping too")
    }

    func testUserInfoThatIsNotTextIsRefused() {
        XCTAssertEqual(
            problem("  - source: Page\n    destination: Page\n    userInfo: {a: [1, 2]}\n")?.problem,
            "userInfo's a must be text, found a YAML list")
        XCTAssertEqual(
            problem("  - source: Page\n    destination: Page\n    userInfo: {a: {b: c}}\n")?.problem,
            "userInfo's a must be text, found a YAML mapping")
        XCTAssertEqual(
            problem("  - source: Page\n    destination: Page\n    userInfo: [a]\n")?.problem,
            "userInfo must be key: value pairs")
    }

    func testCoreDatasOwnPolicyClassIsTheDefaultPolicy() throws {
        for name in ["NSEntityMigrationPolicy", "CoreData.NSEntityMigrationPolicy"] {
            let mapping = try MappingYAMLReader.read(
                Self.header + "  - source: Page\n    destination: Page\n    policy: \(name)\n", name: "Test",
                file: "Test.mapping.yaml")
            XCTAssertNil(mapping.entityMappings.first?.policyName, name)
            XCTAssertEqual(mapping.entityMappings.first?.kind, .copy, name)
        }
    }
}
