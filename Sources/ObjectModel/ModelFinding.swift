/// A ``ModelProblem`` found in one model file, pointing at its line: what `model` prints for a
/// version, and what stops a command that must make or migrate a store at that version.
///
/// A bundle is read whole whatever its versions hold: one version Core Data refuses, or one
/// Chrysalis cannot lay out, stops only the commands that need that version.
public struct ModelFinding: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, and Core Data's verdict.
    public var problem: ModelProblem
    /// The file it is in (a version's `contents` or `elements`, or the bundle).
    public var file: String
    /// The 1-based line, when the file is XML.
    public var line: Int?
    /// The element, as written (`<relationship name="sites">`).
    public var element: String?

    /// `problem`, found in `file`.
    ///
    /// - Parameters:
    ///   - problem: What is wrong, with Core Data's verdict.
    ///   - file: The file it is in.
    ///   - line: The 1-based line, when the file is XML.
    ///   - element: The element, as written.
    public init(_ problem: ModelProblem, file: String, line: Int? = nil, element: String? = nil) {
        self.problem = problem
        self.file = file
        self.line = line
        self.element = element
    }

    /// The verdict's words: what a person reads first.
    public var verdictWords: String {
        switch problem.verdict {
        case .refused: return "Core Data refuses this model"
        case .warning: return "warning"
        case .unsupported: return "Chrysalis cannot make or migrate stores at this version"
        }
    }

    /// `file:line: element in entity "E": verdict: message. Fix: fix`.
    public var description: String { error.description }

    /// The finding as a file error, for commands that stop at it.
    public var error: ModelFileError {
        let place =
            element.map { "\($0) in entity \"\(problem.entity)\"" } ?? problem.property.map {
                "\(problem.entity).\($0)"
            } ?? problem.entity
        return ModelFileError(
            file: file, line: line, element: place, problem: "\(verdictWords): \(problem.message)", fix: problem.fix)
    }
}
