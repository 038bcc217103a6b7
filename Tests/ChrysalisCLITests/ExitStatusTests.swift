import Foundation
import XCTest

/// A CI job knows what fails it: every command's `--help` says its exit statuses, and the
/// Guide's table says the same, command for command.
final class ExitStatusTests: XCTestCase {
    private func words(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The Guide's table: each command's name and what its exit statuses mean.
    private func guideTable() throws -> [String: String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/Guide.md"), encoding: .utf8)
        var table: [String: String] = [:]
        for line in guide.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2, cells[1].hasPrefix("0 ") else { continue }
            table[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[1]
        }
        return table
    }

    func testEveryCommandsHelpSaysItsExitStatusAsTheGuideDoes() throws {
        let table = try guideTable()
        let root = try ChrysalisRunner.run(["--help"])
        let commands =
            root.stdout.components(separatedBy: "SUBCOMMANDS:").last?.split(separator: "\n")
            .compactMap { line -> String? in
                guard line.hasPrefix("  "), line.dropFirst(2).first != " ", let name = line.split(separator: " ").first,
                    name.first?.isLowercase == true, name != "help"
                else { return nil }
                return String(name)
            } ?? []
        XCTAssertGreaterThan(commands.count, 8, "the premise: the subcommands are read from --help:\n\(root.stdout)")
        XCTAssertEqual(Set(table.keys), Set(commands), "the Guide's table has a row for every command, and only those")
        for command in commands {
            let help = try ChrysalisRunner.run([command, "--help"])
            XCTAssertEqual(help.status, 0, help.stderr)
            let said = try XCTUnwrap(table[command])
            XCTAssertTrue(
                words(help.stdout).contains("Exit status: " + words(said)),
                "\(command) --help says its exit statuses as the Guide does (\(said)):\n\(help.stdout)")
        }
    }
}
