/// How many terminal columns text takes: a CJK ideograph, a Hangul syllable, a full-width form
/// or an emoji takes two; a mark or format character alone, none; the rest one. Counting
/// characters instead pushed lines with such names past the edge, where the terminal cut them
/// without a `…` (and `zmessaging2.90.0` read as `zmessaging2.9`, another real version). The
/// ranges are Unicode's East Asian Wide and Fullwidth blocks and its emoji presentation blocks,
/// as terminals apply them; not the C library's `wcwidth`, which answers by the locale.
enum DisplayWidth {
    /// The columns `character` takes.
    static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        let value = first.value
        if value < 0x1100 { return value == 0 ? 0 : 1 }
        // An emoji asked for in emoji presentation (U+FE0F) is two wide wherever it starts.
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if wide.contains(where: { $0.contains(value) }) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }

    /// The columns `text` takes.
    static func of<Text: StringProtocol>(_ text: Text) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The longest end of `text` that fits in `columns`: what a path keeps when cut, its file name.
    static func suffix<Text: StringProtocol>(_ text: Text, columns: Int) -> Substring {
        var used = 0
        var start = text.endIndex
        for index in text.indices.reversed() {
            used += of(text[index])
            if used > columns { break }
            start = index
        }
        return Substring(text[start..<text.endIndex])
    }

    /// The longest start of `text` that fits in `columns`.
    /// The part of `word` (wider than `columns`) to put on a line of that many columns: up to
    /// the last `:`, `,`, `(`, `.` or `_` that fits, else up to the last lower-to-upper case step
    /// (`destinationInstances|For…`), else as much as fits. A key path or a selector is then
    /// broken where a reader expects, never in the middle of a name (`sou` / `rceInstances:`).
    static func piece<Text: StringProtocol>(of word: Text, columns: Int) -> Substring {
        let fits = prefix(word, columns: columns)
        guard fits.count > 1, fits.count < word.count else { return fits }
        if let mark = fits.dropLast().lastIndex(where: { ":,(._".contains($0) }) {
            return fits[...mark]
        }
        let characters = Array(fits)
        if let step = (1..<characters.count).last(where: {
            characters[$0].isUppercase && characters[$0 - 1].isLowercase
        }) {
            return fits.prefix(step)
        }
        return fits
    }

    static func prefix<Text: StringProtocol>(_ text: Text, columns: Int) -> Substring {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            used += of(text[index])
            if used > columns { break }
            end = text.index(after: index)
        }
        return Substring(text[text.startIndex..<end])
    }

    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
        0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
        0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
        0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F004...0x1F004, 0x1F0CF...0x1F0CF,
        0x1F18E...0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248,
        0x1F250...0x1F251, 0x1F260...0x1F265, 0x1F300...0x1F320, 0x1F32D...0x1F335, 0x1F337...0x1F37C,
        0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0, 0x1F3F4...0x1F3F4,
        0x1F3F8...0x1F43E, 0x1F440...0x1F440, 0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E,
        0x1F550...0x1F567, 0x1F57A...0x1F57A, 0x1F595...0x1F596, 0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F,
        0x1F680...0x1F6C5, 0x1F6CC...0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7, 0x1F6DC...0x1F6DF,
        0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F7F0...0x1F7F0, 0x1F90C...0x1F93A,
        0x1F93C...0x1F945, 0x1F947...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
