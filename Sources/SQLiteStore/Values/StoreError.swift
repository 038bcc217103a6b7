/// Why a store cannot be opened, read or written, in one line that names the file and the fix.
public struct StoreError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The kinds of trouble a store can be in; tests and callers branch on these.
    public enum Kind: String, Sendable {
        case missing, unreadable, notSQLite, empty, truncated, corrupt, notCoreData, badMetadata
        case readOnly, busy, full, unknownEntity, unknownProperty, badValue, sqlite
    }

    /// What kind of trouble.
    public var kind: Kind
    /// The store file.
    public var path: String
    /// What is wrong.
    public var problem: String
    /// What to do about it.
    public var fix: String?

    /// An error about the store at `path`.
    ///
    /// - Parameters:
    ///   - kind: The kind of trouble.
    ///   - path: The store file.
    ///   - problem: What is wrong, said after the path.
    ///   - fix: What to do about it, when there is something to suggest.
    public init(_ kind: Kind, path: String, _ problem: String, fix: String? = nil) {
        self.kind = kind
        self.path = path
        self.problem = problem
        self.fix = fix
    }

    /// `path: problem. Fix: fix` on one line.
    public var description: String {
        "\(path): \(problem)" + (fix.map { ". Fix: \($0)" } ?? "")
    }
}
