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
    public func children(named name: String) -> [XMLTree] { children.filter { $0.name == name } }

    /// `YES` is true; anything else, or absence, is false (Xcode's convention).
    public func flag(_ key: String) -> Bool { attributes[key] == "YES" }

    /// The start tag as a person would look for it: `<attribute name="price">`.
    public var tag: String {
        attributes["name"].map { "<\(name) name=\"\($0)\">" } ?? "<\(name)>"
    }

    /// Parses `data`; malformed XML throws a ``ModelFileError`` with the parser's line and reason.
    public static func parse(_ data: Data, file: String) throws -> XMLTree {
        let parser = XMLParser(data: data)
        let builder = TreeBuilder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        // Linux's parser can return true after reporting an error, so the first reported
        // error decides.
        let ok = parser.parse()
        if let failure = builder.firstError ?? (ok ? nil : (parser.lineNumber, parser.columnNumber, (parser.parserError as NSError?)?.code ?? 0)) {
            throw ModelFileError(file: file, line: failure.line,
                                 problem: "malformed XML at column \(failure.column): \(describe(libxml2Code: failure.code))",
                                 fix: "repair the file or restore it from version control")
        }
        guard let root = builder.root else {
            throw ModelFileError(file: file, problem: "malformed XML: the document is empty",
                                 fix: "repair the file or restore it from version control")
        }
        return root
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

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        stack.append(XMLTree(name: elementName, attributes: attributes, children: [], text: "", line: parser.lineNumber))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if !stack.isEmpty { stack[stack.count - 1].text += string }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        if firstError == nil {
            firstError = (parser.lineNumber, parser.columnNumber, (parseError as NSError).code)
        }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard let finished = stack.popLast() else { return }
        if stack.isEmpty { root = finished } else { stack[stack.count - 1].children.append(finished) }
    }
}
