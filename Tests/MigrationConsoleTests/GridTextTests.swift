import Testing

@testable import MigrationConsole

/// What a screen puts in the grid reaches the terminal as text: a store named with escape
/// sequences is shown, not obeyed.
@Suite struct GridTextTests {
    @Test func controlCharactersArePutAsVisibleEscapes() {
        var grid = Grid(width: 40, height: 1)
        grid.put("Books\u{1B}[2J\u{7}\r.sqlite", x: 0, y: 0)
        let row = String((0..<grid.width).map { grid.character(x: $0, y: 0) })
        #expect(row.hasPrefix(#"Books\e[2J\x07\r.sqlite"#), "\(row)")
        #expect(!row.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    /// Columns are counted as the terminal counts them: a CJK character or an emoji takes two,
    /// so a line never runs past its area, and what is cut ends in `…` at the area's last column
    /// (before: characters were counted, such lines were pushed past the edge and the terminal
    /// cut them silently, leaving `zmessaging2.9` of `zmessaging2.90.0`).
    @Test func wideCharactersTakeTwoColumnsAndCutTextEndsInAnEllipsis() {
        var grid = Grid(width: 30, height: 3)
        grid.put("店舗データ zmessaging2.90.0", x: 0, y: 0, limit: 20)
        #expect(grid.row(0).hasPrefix("店舗データ zmessagi…"), "\(grid.row(0))")
        #expect(grid.character(x: 19, y: 0) == "…")
        grid.put("📦 Books ✅", x: 0, y: 1)
        #expect(grid.row(1).hasPrefix("📦 Books ✅"), "\(grid.row(1))")
        #expect(grid.character(x: 3, y: 1) == "B", "the box takes columns 0 and 1")
        // A two-column character that would straddle the edge is not half drawn.
        grid.put("abcd店", x: 0, y: 2, limit: 5)
        #expect(grid.row(2).hasPrefix("abcd…"), "\(grid.row(2))")
        // Writing over half of a wide character blanks its other half.
        var over = Grid(width: 10, height: 1)
        over.put("店店", x: 0, y: 0)
        over.put("x", x: 1, y: 0)
        #expect(over.row(0).hasPrefix(" x店"), "\(over.row(0))")
    }
}

/// A selector or key path wider than its pane breaks where a reader expects (after `:`, `,`,
/// `(`, `.`, `_`, or between camel-case words), never inside a name: `sou` / `rceInstances:`.
@Suite struct WordBreakTests {
    static let expression =
        #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "ChefToChef", $source.chef)"#

    @Test(arguments: [16, 24, 30, 38, 50])
    func longWordsBreakBetweenNames(width: Int) {
        let lines = MigrateScreen.wrap(Self.expression, width: width)
        #expect(
            lines.joined(separator: " ").replacingOccurrences(of: " ", with: "")
                == Self.expression.replacingOccurrences(of: " ", with: ""), "nothing lost")
        for (line, next) in zip(lines, lines.dropFirst()) {
            #expect(DisplayWidth.of(line) <= width)
            let split = (line.last?.isLetter ?? false) && (next.first?.isLowercase ?? false)
            #expect(!split, "\(width) columns: \"\(line)\" / \"\(next)\"")
        }
    }

    @Test func theSQLViewBreaksAtUnderscoresAndDots() {
        let text = "INSERT INTO main.ZCATEGORY_WITH_A_LONG_NAME_INDEED (Z_PK)"
        let lines = SQLScreen.wrap(text, width: 20, first: "", next: "")
        var rest = Substring(text)
        for line in lines.dropLast() {
            #expect(rest.hasPrefix(line), "\(line)")
            rest = rest.dropFirst(line.count)
            // A break inside a word comes after a mark a reader expects.
            if rest.first != " " { #expect(line.last.map { ":,(._".contains($0) } ?? false, "\"\(line)\"") }
            rest = rest.drop { $0 == " " }
        }
    }
}

/// A result pane's sample table wider than its pane: every row, the header too, ends in `…`
/// where it is cut, so a reader knows there is more.
@Suite struct SampleTableTests {
    @Test func aCutRowEndsInAnEllipsis() {
        let table = StepResult.Table(
            title: "Sample rows", columns: ["title", "firstName", "lastName", "synopsis", "price"],
            rows: [["A long title of a book", "Radia", "Hamilton", "The synopsis is the title", "12.5"]])
        let lines = StepPane.layout(table, width: 40)
        #expect(lines.count == 2)
        for line in lines {
            #expect(DisplayWidth.of(line.text) == 40, "\(line.text)")
            #expect(line.text.hasSuffix("…"), "\(line.text)")
        }
        let narrow = StepPane.layout(table, width: 200)
        #expect(narrow.allSatisfy { !$0.text.hasSuffix("…") }, "nothing cut when it fits")
    }
}
