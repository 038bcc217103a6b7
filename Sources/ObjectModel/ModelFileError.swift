/// A model file or bundle Chrysalis cannot use, said the way a compiler would: which file, which
/// line, which element, what is wrong and how to fix it.
public struct ModelFileError: Error, CustomStringConvertible, Hashable, Sendable {
    /// The file or bundle path.
    public var file: String
    /// The 1-based line, when the XML parser reported one.
    public var line: Int?
    /// The element at fault, as written (`<relationship name="owner">` in entity `Car`).
    public var element: String?
    /// What is wrong.
    public var problem: String
    /// How to put it right, when there is something to suggest.
    public var fix: String?

    /// An error in `file`.
    ///
    /// - Parameters:
    ///   - file: The file or bundle path.
    ///   - line: The 1-based line, when known.
    ///   - element: The element at fault, as written.
    ///   - problem: What is wrong.
    ///   - fix: How to put it right, when there is something to suggest.
    public init(file: String, line: Int? = nil, element: String? = nil, problem: String, fix: String? = nil) {
        self.file = file
        self.line = line
        self.element = element
        self.problem = problem
        self.fix = fix
    }

    /// `file:line: element: problem (fix)` on one line.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let element { text += "\(element): " }
        text += problem
        if let fix { text += ". Fix: \(fix)" }
        return text
    }
}
