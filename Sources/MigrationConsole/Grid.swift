import Foundation
import ObjectModel

/// How a cell looks. The terminal adapter turns styles into colours, or into bold and reverse
/// when there are no colours.
package enum CellStyle: UInt8, Sendable, CaseIterable {
    case normal, bold, dim, reverse, accent, good, bad, title

    /// The style's letter in golden files.
    package var letter: Character { Array(".bdragxt")[Int(rawValue)] }
}

/// A screen as characters with a style each: what every screen function returns, what golden
/// files store (as plain text), and all the terminal adapter ever draws.
package struct Grid: Equatable, Sendable {
    /// Columns and rows.
    package let width: Int, height: Int
    private(set) var characters: [Character]
    private(set) var styles: [CellStyle]

    /// A blank grid.
    package init(width: Int, height: Int) {
        self.width = max(width, 0)
        self.height = max(height, 0)
        characters = Array(repeating: " ", count: self.width * self.height)
        styles = Array(repeating: .normal, count: self.width * self.height)
    }

    /// The cell after a two-column character: it holds nothing of its own, and is neither
    /// drawn nor shown (the terminal moves two columns for the character before it).
    static let continuation: Character = "\u{F8FF}"

    /// Writes `text` at column `x` of row `y`, clipped to the grid (and to `limit` columns),
    /// counting columns as the terminal does (`DisplayWidth`). Text that had to be cut ends in
    /// `…`, so a cut name is never taken for a whole one (trailing spaces cut off are not text).
    package mutating func put(_ text: String, x: Int, y: Int, style: CellStyle = .normal, limit: Int? = nil) {
        guard y >= 0, y < height else { return }
        // A store's or a model's name is bytes: a control character is shown, never sent to the terminal.
        let text = TerminalText.oneLine(text)
        let end = min(width, x + (limit ?? width))
        var column = x
        var rest = Substring(text)
        while let character = rest.first {
            let columns = DisplayWidth.of(character)
            guard column + columns <= end else { break }
            if columns > 0, column >= 0 {
                set(character, at: column, y: y, style: style)
                if columns == 2 { set(Self.continuation, at: column + 1, y: y, style: style) }
            }
            column += columns
            rest = rest.dropFirst()
        }
        if rest.contains(where: { $0 != " " }), end > max(x, 0) {
            // The `…` takes the last column; a two-column character under it gives up both.
            let last = end - 1
            if characters[y * width + last] == Self.continuation, last > 0 {
                set(" ", at: last - 1, y: y, style: style)
            }
            set("…", at: last, y: y, style: style)
        }
    }

    /// One cell, keeping two-column characters whole: writing over either half of one blanks
    /// the other half.
    private mutating func set(_ character: Character, at column: Int, y: Int, style: CellStyle) {
        guard column >= 0, column < width else { return }
        let index = y * width + column
        if characters[index] == Self.continuation, character != Self.continuation, column > 0 {
            characters[index - 1] = " "
        }
        if column + 1 < width, characters[index + 1] == Self.continuation, DisplayWidth.of(characters[index]) == 2,
            character != characters[index]
        {
            characters[index + 1] = " "
        }
        characters[index] = character
        styles[index] = style
    }

    /// Paints every place `text` occurs in row `y` between columns `from` and `to` (ignoring
    /// case) in `style`, except cells drawn reversed (the selection stays readable): a search's
    /// matches, lit wherever they are on the screen.
    package mutating func highlight(_ text: String, y: Int, from: Int, to: Int, style: CellStyle) {
        let wanted = text.lowercased().map { $0 }
        guard !wanted.isEmpty, y >= 0, y < height else { return }
        let start = max(from, 0), end = min(to, width)
        let cells = (start..<end).map {
            String(characters[y * width + $0]).lowercased().first ?? characters[y * width + $0]
        }
        guard cells.count >= wanted.count else { return }
        for offset in 0...(cells.count - wanted.count) where Array(cells[offset..<(offset + wanted.count)]) == wanted {
            for column in (start + offset)..<(start + offset + wanted.count)
            where styles[y * width + column] != .reverse {
                styles[y * width + column] = style
            }
        }
    }

    /// The character at a cell.
    package func character(x: Int, y: Int) -> Character { characters[y * width + x] }

    /// The style at a cell.
    package func style(x: Int, y: Int) -> CellStyle { styles[y * width + x] }

    /// Row `y` as the terminal shows it (a two-column character once).
    package func row(_ y: Int) -> String {
        String(characters[(y * width)..<((y + 1) * width)].filter { $0 != Self.continuation })
    }

    /// The whole grid as text, trailing spaces trimmed: the golden-file form.
    package var text: String {
        (0..<height).map { row($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }.joined(
            separator: "\n") + "\n"
    }

    /// Every cell's style as one letter (``CellStyle/letter``), a row per line, trailing normal
    /// cells trimmed: the golden files' second half, so a lost highlight fails a test.
    package var styleText: String {
        (0..<height).map { y in
            String(styles[(y * width)..<((y + 1) * width)].map(\.letter)).replacingOccurrences(
                of: "\\.+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }

    /// The golden-file form: the text, a legend, then the styles.
    package var golden: String {
        text + "── styles: " + CellStyle.allCases.map { "\($0.letter) \($0)" }.joined(separator: "  ") + " ──\n"
            + styleText
    }

    /// Replaces what an ASCII terminal cannot show (arrows in key hints, data with accents) with
    /// the nearest ASCII, so a non-UTF-8 locale never sees garbage.
    package mutating func makeASCII() {
        let fallback: [Character: Character] = [
            "←": "<", "→": ">", "↑": "^", "↓": "v", "×": "x", "–": "-", "—": "-", "“": "\"", "”": "\"", "’": "'",
            "…": "~",
        ]
        for index in characters.indices where !characters[index].isASCII {
            characters[index] = fallback[characters[index]] ?? "?"
        }
    }

    /// Runs of equal style in row `y`, for drawing: where each starts, its text, and the columns
    /// it takes.
    func runs(_ y: Int) -> [(x: Int, text: String, style: CellStyle, columns: Int)] {
        var result: [(Int, String, CellStyle, Int)] = []
        var start = 0
        while start < width {
            let style = styles[y * width + start]
            var end = start
            while end < width && styles[y * width + end] == style { end += 1 }
            result.append(
                (
                    start,
                    String(characters[(y * width + start)..<(y * width + end)].filter { $0 != Self.continuation }),
                    style, end - start
                ))
            start = end
        }
        return result
    }
}

/// Characters for lines, bars and marks: Unicode where the terminal speaks UTF-8, ASCII elsewhere.
package struct Glyphs: Sendable, Equatable {
    package var horizontal: Character, vertical: Character, full: Character, empty: Character
    package var current: Character, store: Character, pointer: Character, check: Character, arrow: String
    package var topLeft: Character, topRight: Character, bottomLeft: Character, bottomRight: Character
    package var separator: String, none: String, ellipsis: String

    /// Box drawing and blocks.
    package static let unicode = Glyphs(
        horizontal: "─", vertical: "│", full: "█", empty: "░", current: "★", store: "●", pointer: "▶", check: "✓",
        arrow: "→",
        topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘", separator: " · ", none: "∅", ellipsis: "…")
    /// Plain ASCII for non-UTF-8 locales and old terminals.
    package static let ascii = Glyphs(
        horizontal: "-", vertical: "|", full: "#", empty: ".", current: "*", store: "o", pointer: ">", check: "+",
        arrow: "->",
        topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+", separator: " | ", none: "-", ellipsis: "...")

    /// `text` as this glyph set can show it: with ASCII glyphs, the signs plain text uses that
    /// ASCII spells in several characters (`≤` as `<=`, `…` as `...`, `→` as `->`), so wrapped
    /// text such as SQL notes reads right instead of showing `?` (``Grid/makeASCII()`` handles
    /// what is left, cell by cell).
    package func plain(_ text: String) -> String {
        guard self == .ascii, !text.allSatisfy(\.isASCII) else { return text }
        let spelled: [Character: String] = [
            "≤": "<=", "≥": ">=", "≠": "!=", "…": "...", "→": "->", "←": "<-", "·": "-", "—": "-", "–": "-",
        ]
        return String(text.flatMap { spelled[$0] ?? String($0) })
    }
}
