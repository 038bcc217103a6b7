/// Why a migration stopped, in one line that says what, where and how to fix it. The source
/// store is untouched whenever one of these is thrown.
public struct MigrationError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The kinds of failure.
    public enum Kind: String, Sendable {
        case cancelled, wrongModel, missingPolicy, evaluation, validation, verification, locked, notFound, swap, noSpace, notWritable
    }

    /// What kind.
    public var kind: Kind
    /// What happened.
    public var message: String
    /// What to do.
    public var fix: String?

    /// A migration error.
    public init(_ kind: Kind, _ message: String, fix: String? = nil) {
        self.kind = kind
        self.message = message
        self.fix = fix
    }

    /// `message. Fix: fix`.
    public var description: String { message + (fix.map { ". Fix: \($0)" } ?? "") }
}
