/// Splits expression text into tokens, each with the column it starts at.
struct ExpressionLexer {
    enum Kind: Equatable {
        case number(String), string(String), identifier(String), escaped(String), variable(String), collectionOperator(
            String)
        case symbol(String), end
    }

    struct Token: Equatable {
        var kind: Kind
        var column: Int
    }

    /// Words Core Data's parser reserves; as keys they must be written `#word`.
    static let reserved: Set<String> = [
        "AND", "OR", "NOT", "IN", "LIKE", "BEGINSWITH", "ENDSWITH", "CONTAINS", "MATCHES", "BETWEEN", "ANY", "ALL",
        "SOME",
        "NONE", "NULL", "NIL", "SELF", "TRUE", "FALSE", "YES", "NO", "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY",
        "FETCH",
        "CAST", "TRUEPREDICATE", "FALSEPREDICATE", "FUNCTION",
    ]

    static func isReserved(_ word: String) -> Bool { reserved.contains(word.uppercased()) }

    static func tokens(_ text: String) throws -> [Token] {
        var scan = Scan(text: text)
        while scan.index < scan.characters.count {
            let character = scan.characters[scan.index]
            if character.isWhitespace {
                scan.index += 1
            } else if character.isNumber
                || (character == "." && scan.index + 1 < scan.characters.count
                    && scan.characters[scan.index + 1].isNumber)
            {
                scan.number()
            } else if character == "\"" || character == "'" {
                try scan.string(quote: character)
            } else if character == "$" || character == "#" || character == "@" {
                try scan.sigil(character)
            } else if character.isLetter || character == "_" {
                let start = scan.index
                scan.tokens.append(Token(kind: .identifier(scan.word(from: start)), column: start + 1))
            } else {
                try scan.symbol(character)
            }
        }
        scan.tokens.append(Token(kind: .end, column: scan.characters.count + 1))
        return scan.tokens
    }

    /// The text being split, the position reached, and the tokens so far.
    private struct Scan {
        let text: String
        let characters: [Character]
        var index = 0
        var tokens: [Token] = []

        init(text: String) {
            self.text = text
            characters = Array(text)
        }

        func fail(_ message: String, at position: Int) -> ExpressionError {
            ExpressionError(text: text, column: position + 1, message: message)
        }

        /// Letters, digits and `_` from `start`, consumed.
        mutating func word(from start: Int) -> String {
            var end = start
            while end < characters.count, characters[end].isLetter || characters[end].isNumber || characters[end] == "_"
            { end += 1 }
            index = end
            return String(characters[start..<end])
        }

        /// Digits, at most one fraction, at most one exponent.
        mutating func number() {
            var end = index
            var seenDot = false, seenExponent = false
            while end < characters.count {
                let c = characters[end]
                if c.isNumber {
                    end += 1
                } else if c == ".", !seenDot, !seenExponent, end + 1 < characters.count, characters[end + 1].isNumber {
                    seenDot = true; end += 1
                } else if c == "e" || c == "E", !seenExponent, end + 1 < characters.count,
                    characters[end + 1].isNumber
                        || ((characters[end + 1] == "-" || characters[end + 1] == "+") && end + 2 < characters.count
                            && characters[end + 2].isNumber)
                {
                    seenExponent = true; end += 2
                } else {
                    break
                }
            }
            tokens.append(Token(kind: .number(String(characters[index..<end])), column: index + 1))
            index = end
        }

        /// A string in `quote`s; a backslash escapes the next character (`\n` and `\t` are a
        /// newline and a tab).
        mutating func string(quote: Character) throws {
            let start = index
            var value = ""
            index += 1
            var closed = false
            while index < characters.count {
                let c = characters[index]
                if c == "\\", index + 1 < characters.count {
                    let next = characters[index + 1]
                    value.append(next == "n" ? "\n" : next == "t" ? "\t" : next)
                    index += 2
                } else if c == quote {
                    closed = true; index += 1; break
                } else {
                    value.append(c); index += 1
                }
            }
            guard closed else { throw fail("the string starting here is not closed (missing \(quote))", at: start) }
            tokens.append(Token(kind: .string(value), column: start + 1))
        }

        /// `$variable`, `#escaped` or `@operator`.
        mutating func sigil(_ character: Character) throws {
            let start = index
            guard index + 1 < characters.count, characters[index + 1].isLetter || characters[index + 1] == "_" else {
                throw fail("\(character) must be followed by a name", at: start)
            }
            let name = word(from: index + 1)
            let kind: Kind =
                character == "$" ? .variable(name) : character == "#" ? .escaped(name) : .collectionOperator(name)
            tokens.append(Token(kind: kind, column: start + 1))
        }

        /// An operator or punctuation, two characters before one (`<>`, `=<` and `=>` spelled
        /// as Core Data's `!=`, `<=`, `>=`; `=` as `==`).
        mutating func symbol(_ character: Character) throws {
            let start = index
            let two = index + 1 < characters.count ? String(characters[index...index + 1]) : ""
            if ["==", "!=", "<=", ">=", "<>", "&&", "||", "=<", "=>", "**"].contains(two) {
                let normalized = ["<>": "!=", "=<": "<=", "=>": ">="][two] ?? two
                tokens.append(Token(kind: .symbol(normalized), column: start + 1))
                index += 2
            } else if "+-*/(),.{}[]<>=!:".contains(character) {
                tokens.append(Token(kind: .symbol(character == "=" ? "==" : String(character)), column: start + 1))
                index += 1
            } else {
                throw fail("unexpected character '\(character)'", at: start)
            }
        }
    }
}
