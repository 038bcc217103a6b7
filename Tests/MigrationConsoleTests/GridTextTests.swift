import MigrationConsole
import Testing

/// What a screen puts in the grid reaches the terminal as text: a store named with escape
/// sequences is shown, not obeyed.
@Suite struct GridTextTests {
    @Test func controlCharactersArePutAsVisibleEscapes() {
        var grid = Grid(width: 40, height: 1)
        grid.put("Books\u{1B}[2J\u{7}\r.sqlite", x: 0, y: 0)
        let row = String((0 ..< grid.width).map { grid.character(x: $0, y: 0) })
        #expect(row.hasPrefix(#"Books\e[2J\x07\r.sqlite"#), "\(row)")
        #expect(!row.unicodeScalars.contains { $0.value < 0x20 || (0x7F ... 0x9F).contains($0.value) })
    }
}
