import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An XML element with the line it starts on: the small tree the Xcode file readers walk, so
/// every error can point at a line.
public struct XMLTree: Sendable {
    /// The element name.
    public var name: String
    /// Its XML attributes.
    public var attributes: [String: String]
    /// Child elements in document order.
    public var children: [XMLTree]
    /// The text directly inside the element.
    public var text: String
    /// The line the element starts on.
    public var line: Int

    /// The children called `name`, in document order.
    ///
    /// - Parameter name: The element name.
    /// - Returns: The matching children; empty when there are none.
    public func children(named name: String) -> [XMLTree] { children.filter { $0.name == name } }

    /// `YES` is true; anything else, or absence, is false (Xcode's convention).
    ///
    /// - Parameter key: The XML attribute's name.
    /// - Returns: Whether the attribute is `YES`.
    public func flag(_ key: String) -> Bool { attributes[key] == "YES" }

    /// The start tag as a person would look for it: `<attribute name="price">`.
    public var tag: String {
        attributes["name"].map { "<\(name) name=\"\($0)\">" } ?? "<\(name)>"
    }

    /// How deeply elements may nest. Xcode's files nest about five deep (`model`, `entity`,
    /// `attribute`, `userInfo`, `entry`); the tree is built and torn down recursively, so a
    /// document nested 100,000 deep would overflow the stack. Deeper documents are refused while
    /// parsing, before any such tree exists.
    public static let maximumDepth = 256

    /// Parses `data`; malformed XML throws a ``ModelFileError`` with the parser's line and reason.
    ///
    /// - Parameters:
    ///   - data: The XML.
    ///   - file: The path errors name.
    /// - Returns: The root element.
    /// - Throws: A `ModelFileError` with the line, when the data is not UTF-8, nests deeper than
    ///   `maximumDepth`, or is malformed.
    public static func parse(_ data: Data, file: String) throws -> XMLTree {
        // Foundation's XMLParser traps when libxml2 hands its callbacks a name that is not valid
        // UTF-8, so the bytes are checked first. Xcode writes its XML files in UTF-8.
        if let offset = firstInvalidUTF8(in: data) {
            let before = data.prefix(offset)
            let line = 1 + before.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            let column = offset - (before.lastIndex(of: 0x0A).map { $0 - data.startIndex + 1 } ?? 0) + 1
            throw ModelFileError(
                file: file, line: line,
                problem:
                    """
                    malformed XML at column \(column): not UTF-8 text (byte \(offset) is not part of a UTF-8 \
                    character)
                    """,
                fix: "save the file as UTF-8, or restore it from version control")
        }
        let parser = XMLParser(data: data)
        let builder = TreeBuilder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        // Linux's parser can return true after reporting an error, so the first reported
        // error decides.
        let ok = parser.parse()
        if let line = builder.tooDeepAtLine {
            throw ModelFileError(
                file: file, line: line,
                problem:
                    """
                    elements are nested more than \(maximumDepth) deep (Xcode's model and mapping files nest about \
                    five)
                    """,
                fix: "this is not a file Xcode wrote; restore it from version control")
        }
        if let failure = builder.firstError
            ?? (ok ? nil : (parser.lineNumber, parser.columnNumber, (parser.parserError as NSError?)?.code ?? 0))
        {
            throw ModelFileError(
                file: file, line: failure.line,
                problem: "malformed XML at column \(failure.column): \(describe(libxml2Code: failure.code))",
                fix: "repair the file or restore it from version control")
        }
        guard let root = builder.root else {
            throw ModelFileError(
                file: file, problem: "malformed XML: the document is empty",
                fix: "repair the file or restore it from version control")
        }
        return root
    }

    /// The offset of the first byte that does not belong to a well-formed UTF-8 character
    /// (overlong forms, surrogates and values past U+10FFFF included), or `nil` when all do.
    static func firstInvalidUTF8(in data: Data) -> Int? {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int? in
            var index = 0
            while index < bytes.count {
                let lead = bytes[index]
                if lead < 0x80 { index += 1; continue }
                let length: Int, minimum: UInt32
                switch lead {
                case 0xC2...0xDF: (length, minimum) = (2, 0x80)
                case 0xE0...0xEF: (length, minimum) = (3, 0x800)
                case 0xF0...0xF4: (length, minimum) = (4, 0x10000)
                default: return index
                }
                guard index + length <= bytes.count else { return index }
                var scalar = UInt32(lead) & (0x7F >> UInt32(length))
                for next in bytes[(index + 1)..<(index + length)] {
                    guard next & 0xC0 == 0x80 else { return index }
                    scalar = scalar << 6 | UInt32(next & 0x3F)
                }
                guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return index }
                index += length
            }
            return nil
        }
    }

    /// libxml2's error numbers (which Foundation passes through) in words.
    private static func describe(libxml2Code code: Int) -> String {
        let words: [Int: String] = [
            4: "the document is empty", 5: "the document ends early or has content after its root element",
            9: "invalid character", 26: "undeclared entity (an & that should be &amp;?)",
            38: "'<' inside an attribute value", 39: "attribute value does not start with a quote",
            40: "attribute value is not closed", 41: "attribute without a value", 42: "attribute given twice",
            65: "space required", 68: "name expected (a stray '<'?)", 73: "'>' expected",
            76: "opening and closing tags do not match", 77: "element not closed before the end",
        ]
        return words[code].map { "\($0) (libxml2 error \(code))" } ?? "libxml2 error \(code)"
    }
}

/// Collects elements into an ``XMLTree`` as the SAX parser reports them.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [XMLTree] = []
    var root: XMLTree?
    var firstError: (line: Int, column: Int, code: Int)?
    /// Where an element went past ``XMLTree/maximumDepth``; parsing stopped there.
    var tooDeepAtLine: Int?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        guard tooDeepAtLine == nil, firstError == nil else { return }
        guard stack.count < XMLTree.maximumDepth else {
            tooDeepAtLine = parser.lineNumber
            parser.abortParsing()
            return
        }
        stack.append(
            XMLTree(name: elementName, attributes: attributes, children: [], text: "", line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if !stack.isEmpty { stack[stack.count - 1].text += string }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        // abortParsing() reports an error of its own; the depth decides then.
        if firstError == nil && tooDeepAtLine == nil {
            firstError = (parser.lineNumber, parser.columnNumber, (parseError as NSError).code)
            // The first error decides, so there is no point reading on: a file of a million
            // recoverable errors would otherwise take seconds.
            parser.abortParsing()
        }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard tooDeepAtLine == nil, let finished = stack.popLast() else { return }
        if stack.isEmpty { root = finished } else { stack[stack.count - 1].children.append(finished) }
    }
}
