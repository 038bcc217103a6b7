/// Text bound for a terminal, with its control characters made visible: a path is bytes, and a
/// store named `\e[2J.sqlite` must not clear the screen of whoever runs `inspect` on it, nor a
/// name with a carriage return hide the words before it. Line feeds and tabs stay (messages have
/// lines); every other C0 and C1 control and DEL is written as an escape (`\e`, `\r`, `\x7f`,
/// `\u{9b}`), so what is shown is what is there, in a form that can be typed back.
package enum TerminalText {
    /// `text` with every control character but line feed and tab escaped.
    package static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var shown = ""
        shown.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                shown.unicodeScalars.append(scalar)
                continue
            }
            shown += escape(scalar)
        }
        return shown
    }

    /// `text` on one line: line feeds and tabs escaped too, for a name shown inside a sentence
    /// or a cell.
    package static func oneLine(_ text: String) -> String {
        visible(text.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t"))
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        default: return false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x1B: return "\\e"
        case 0x0D: return "\\r"
        case 0x00...0x1F, 0x7F: return "\\x" + hex(scalar.value)
        default: return "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
