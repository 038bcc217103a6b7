import Foundation
import XCTest

/// No function in Sources is longer than 50 lines, from its declaration to its closing brace: a
/// longer one does several things, and each deserves a name. Kept by this test rather than by
/// review, because long functions came back each time they were split by hand.
final class FunctionLengthTests: XCTestCase {
    static let longest = 50
    private let sources = Repository.sources

    func testNoFunctionIsLongerThanFiftyLines() throws {
        var long: [String] = []
        let files =
            FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }
            ?? []
        for file in files where file.pathExtension == "swift" {
            let code = ModuleLayers.code(try String(contentsOf: file, encoding: .utf8))
            for function in FunctionSpans.spans(in: code) where function.lines > Self.longest {
                long.append(
                    "\(file.path.replacingOccurrences(of: sources.path + "/", with: "")):\(function.line) \(function.name): \(function.lines) lines"
                )
            }
        }
        XCTAssertTrue(
            long.isEmpty,
            "functions over \(Self.longest) lines; split each into steps with names:\n"
                + long.sorted().joined(separator: "\n"))
    }

    /// The spans are measured from declaration to closing brace; a requirement without a body,
    /// and braces inside a signature's default values, do not count.
    func testSpansAreMeasuredFromDeclarationToClosingBrace() {
        let code = """
            protocol P {
                func required() throws
                func other()
            }
            struct S {
                func short(_ make: () -> Int = { 1 }) -> Int {
                    let x = 1
                    return x
                }
                init?(
                    value: Int
                ) {
                    guard value > 0 else { return nil }
                }
            }
            """
        let spans = FunctionSpans.spans(in: code)
        XCTAssertEqual(spans.map(\.name), ["short", "init"])
        XCTAssertEqual(spans.map(\.lines), [3, 4])
    }
}

/// Where each function (and initializer) with a body starts and ends, in code whose comments
/// and strings are blanked (``ModuleLayers/code(_:)``).
enum FunctionSpans {
    struct Span { let name: String, line: Int, lines: Int }

    static func spans(in code: String) -> [Span] {
        let characters = Array(code)
        var spans: [Span] = []
        var line = 1, index = 0
        // The declaration waiting for its body, and the open braces of bodies being measured.
        var pending: (name: String, line: Int, parens: Int)?
        var parens = 0
        var open: [(name: String, line: Int)?] = []
        while index < characters.count {
            let character = characters[index]
            if character.isLetter || character == "_" {
                let afterDot = index > 0 && characters[index - 1] == "."  // `super.init(…)`, `.init(…)`: a call
                var word = ""
                while index < characters.count
                    && (characters[index].isLetter || characters[index].isNumber || characters[index] == "_")
                {
                    word.append(characters[index])
                    index += 1
                }
                if word == "func" || (word == "init" && !afterDot) {
                    pending = (word == "init" ? "init" : nextWord(characters, from: index), line, parens)
                } else if let waiting = pending, parens == waiting.parens,
                    ["var", "let", "case", "subscript", "struct", "class", "enum"].contains(word)
                {
                    pending = nil
                }
                continue
            }
            switch character {
            case "\n": line += 1
            case "(": parens += 1
            case ")": parens -= 1
            case "{":
                if let waiting = pending, parens == waiting.parens {
                    open.append((waiting.name, waiting.line))
                    pending = nil
                } else {
                    open.append(nil)
                }
            case "}":
                if pending != nil && parens == pending?.parens { pending = nil }
                if let closed = open.popLast(), let function = closed {
                    spans.append(Span(name: function.name, line: function.line, lines: line - function.line))
                }
            default: break
            }
            index += 1
        }
        return spans
    }

    private static func nextWord(_ characters: [Character], from start: Int) -> String {
        var index = start, word = ""
        while index < characters.count && characters[index].isWhitespace { index += 1 }
        while index < characters.count && !characters[index].isWhitespace && !"(<".contains(characters[index]) {
            word.append(characters[index])
            index += 1
        }
        return word
    }
}
