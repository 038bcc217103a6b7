import Foundation
import ObjectModel

/// How a cell looks. The terminal adapter turns styles into colours, or into bold and reverse
/// when there are no colours.
public enum CellStyle: UInt8, Sendable, CaseIterable {
    case normal, bold, dim, reverse, accent, good, bad, title

    /// The style's letter in golden files.
    public var letter: Character { Array(".bdragxt")[Int(rawValue)] }
}

/// A screen as characters with a style each: what every screen function returns, what golden
/// files store (as plain text), and all the terminal adapter ever draws.
public struct Grid: Equatable, Sendable {
    /// Columns and rows.
    public let width: Int, height: Int
    private(set) var characters: [Character]
    private(set) var styles: [CellStyle]

    /// A blank grid.
    public init(width: Int, height: Int) {
        self.width = max(width, 0)
        self.height = max(height, 0)
        characters = Array(repeating: " ", count: self.width * self.height)
        styles = Array(repeating: .normal, count: self.width * self.height)
    }

    /// Writes `text` at column `x` of row `y`, clipped to the grid (and to `limit` columns). Text
    /// that had to be cut ends in `…`, so a cut name is never taken for a whole one (trailing
    /// spaces cut off are not text).
    public mutating func put(_ text: String, x: Int, y: Int, style: CellStyle = .normal, limit: Int? = nil) {
        guard y >= 0, y < height else { return }
        // A store's or a model's name is bytes: a control character is shown, never sent to the terminal.
        let text = TerminalText.oneLine(text)
        let end = min(width, x + (limit ?? width))
        var column = x
        var rest = Substring(text)
        while let character = rest.first, column < end {
            if column >= 0 {
                characters[y * width + column] = character
                styles[y * width + column] = style
            }
            column += 1
            rest = rest.dropFirst()
        }
        if column == end, column > max(x, 0), rest.contains(where: { $0 != " " }) {
            characters[y * width + column - 1] = "…"
        }
    }

    /// Styles `length` cells of row `y` from column `x`.
    public mutating func paint(x: Int, y: Int, length: Int, style: CellStyle) {
        guard y >= 0, y < height else { return }
        for column in max(x, 0)..<min(width, x + length) { styles[y * width + column] = style }
    }

    /// The character at a cell.
    public func character(x: Int, y: Int) -> Character { characters[y * width + x] }

    /// The style at a cell.
    public func style(x: Int, y: Int) -> CellStyle { styles[y * width + x] }

    /// Row `y` as text.
    public func row(_ y: Int) -> String { String(characters[(y * width)..<((y + 1) * width)]) }

    /// The whole grid as text, trailing spaces trimmed: the golden-file form.
    public var text: String {
        (0..<height).map { row($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }.joined(separator: "\n") + "\n"
    }

    /// Every cell's style as one letter (``CellStyle/letter``), a row per line, trailing normal
    /// cells trimmed: the golden files' second half, so a lost highlight fails a test.
    public var styleText: String {
        (0..<height).map { y in
            String(styles[(y * width)..<((y + 1) * width)].map(\.letter)).replacingOccurrences(of: "\\.+$", with: "", options: .regularExpression)
        }.joined(separator: "\n") + "\n"
    }

    /// The golden-file form: the text, a legend, then the styles.
    public var golden: String {
        text + "── styles: " + CellStyle.allCases.map { "\($0.letter) \($0)" }.joined(separator: "  ") + " ──\n" + styleText
    }

    /// Replaces what an ASCII terminal cannot show (arrows in key hints, data with accents) with
    /// the nearest ASCII, so a non-UTF-8 locale never sees garbage.
    public mutating func makeASCII() {
        let fallback: [Character: Character] = ["←": "<", "→": ">", "↑": "^", "↓": "v", "×": "x", "–": "-", "—": "-", "“": "\"", "”": "\"", "’": "'", "…": "~"]
        for index in characters.indices where !characters[index].isASCII {
            characters[index] = fallback[characters[index]] ?? "?"
        }
    }

    /// Runs of equal style in row `y`, for drawing.
    func runs(_ y: Int) -> [(x: Int, text: String, style: CellStyle)] {
        var result: [(Int, String, CellStyle)] = []
        var start = 0
        while start < width {
            let style = styles[y * width + start]
            var end = start
            while end < width && styles[y * width + end] == style { end += 1 }
            result.append((start, String(characters[(y * width + start)..<(y * width + end)]), style))
            start = end
        }
        return result
    }
}

/// Characters for lines, bars and marks: Unicode where the terminal speaks UTF-8, ASCII elsewhere.
public struct Glyphs: Sendable, Equatable {
    public var horizontal: Character, vertical: Character, full: Character, empty: Character
    public var current: Character, store: Character, pointer: Character, check: Character, arrow: String
    public var topLeft: Character, topRight: Character, bottomLeft: Character, bottomRight: Character
    public var separator: String, none: String, ellipsis: String

    /// Box drawing and blocks.
    public static let unicode = Glyphs(horizontal: "─", vertical: "│", full: "█", empty: "░", current: "★", store: "●", pointer: "▶", check: "✓", arrow: "→",
                                       topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘", separator: " · ", none: "∅", ellipsis: "…")
    /// Plain ASCII for non-UTF-8 locales and old terminals.
    public static let ascii = Glyphs(horizontal: "-", vertical: "|", full: "#", empty: ".", current: "*", store: "o", pointer: ">", check: "+", arrow: "->",
                                     topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+", separator: " | ", none: "-", ellipsis: "...")

    /// `text` as this glyph set can show it: with ASCII glyphs, the signs plain text uses that
    /// ASCII spells in several characters (`≤` as `<=`, `…` as `...`, `→` as `->`), so wrapped
    /// text such as SQL notes reads right instead of showing `?` (``Grid/makeASCII()`` handles
    /// what is left, cell by cell).
    public func plain(_ text: String) -> String {
        guard self == .ascii, !text.allSatisfy(\.isASCII) else { return text }
        let spelled: [Character: String] = ["≤": "<=", "≥": ">=", "≠": "!=", "…": "...", "→": "->", "←": "<-", "·": "-", "—": "-", "–": "-"]
        return String(text.flatMap { spelled[$0] ?? String($0) })
    }
}
