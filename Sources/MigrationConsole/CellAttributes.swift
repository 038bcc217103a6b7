/// What a terminal draws for a ``CellStyle``: a colour pair, bold, reverse, dim. A pure mapping,
/// so tests check it without a terminal; the adapter only turns it into ncurses bits.
package struct CellAttributes: Equatable, Sendable {
    /// The colour pair (0: the terminal's default colours).
    package var pair: Int16
    package var bold: Bool, reverse: Bool, dim: Bool

    /// Attributes as given.
    package init(pair: Int16 = 0, bold: Bool = false, reverse: Bool = false, dim: Bool = false) {
        (self.pair, self.bold, self.reverse, self.dim) = (pair, bold, reverse, dim)
    }

    /// The colour pairs the adapter defines: foreground and background (-1: the terminal's own).
    package static let pairs: [Int16: (foreground: Int16, background: Int16)] = [
        1: (6, -1), 2: (2, -1), 3: (1, -1), 4: (0, 6),
    ]
}

extension CellStyle {
    /// The attributes for this style, in colour or (without colours, or under `NO_COLOR`) in
    /// bold and reverse alone, so nothing a colour marks is lost on a monochrome terminal.
    ///
    /// `highContrast` (for a projector, where dim text is the first thing lost): no style is dim,
    /// dim text is drawn as plain text, and the title bar in reverse video, which any projector
    /// shows.
    package func attributes(colors: Bool, highContrast: Bool = false) -> CellAttributes {
        if highContrast {
            switch self {
            case .dim: return CellAttributes()
            case .title: return CellAttributes(bold: true, reverse: true)
            default: break
            }
        }
        switch self {
        case .normal: return CellAttributes()
        case .bold: return CellAttributes(bold: true)
        case .dim: return colors ? CellAttributes(dim: true) : CellAttributes()
        case .reverse: return CellAttributes(reverse: true)
        case .title: return colors ? CellAttributes(pair: 4, bold: true) : CellAttributes(reverse: true)
        case .accent: return colors ? CellAttributes(pair: 1, bold: true) : CellAttributes(bold: true)
        case .good: return colors ? CellAttributes(pair: 2, bold: true) : CellAttributes(bold: true)
        case .bad: return colors ? CellAttributes(pair: 3, bold: true) : CellAttributes(bold: true)
        }
    }
}
