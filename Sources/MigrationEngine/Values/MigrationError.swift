import ObjectModel
import SQLiteStore

/// Why a migration stopped, in one line that says what, where, where the store stands now (see
/// ``StoreState``) and how to fix it.
public struct MigrationError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The kinds of failure.
    public enum Kind: String, Sendable {
        case cancelled, wrongModel, missingPolicy, evaluation, validation, verification, locked, notFound, swap,
            noSpace, notWritable
        /// Another process wrote to the store while it was being migrated (its writes are kept).
        case otherWriter
        /// The store could not be read or written (from a `SQLiteStore` error).
        case store
        /// A model or mapping file could not be used.
        case modelFile
        /// A store a history check generated breaks its own model's rules: what fails then says
        /// nothing of a step.
        case generatedData
        /// The store's rows lack what an inferred step's destination requires (a new required
        /// value without a default, a new uniqueness they break): Core Data refuses such a store
        /// (error 134110), and another store of the same model may migrate.
        case unmetRequirement
    }

    /// What kind.
    public var kind: Kind
    /// What happened.
    public var message: String
    /// What to do.
    public var fix: String?
    /// Where the store stands, once a plan runner knows (a single step's error leaves it unset).
    public var state: StoreState?
    /// The step the migration stopped at (`Model 9 → Model 10`), when it stopped at one: the plan
    /// refused it, or it failed as it ran. What a history check groups its failures by.
    public var step: String?

    /// A migration error.
    ///
    /// - Parameters:
    ///   - kind: The kind of failure.
    ///   - message: What happened.
    ///   - fix: What to do, when there is something to suggest.
    ///   - state: Where the store stands, when known.
    public init(_ kind: Kind, _ message: String, fix: String? = nil, state: StoreState? = nil) {
        self.kind = kind
        self.message = message
        self.fix = fix
        self.state = state
    }

    /// `message; state. Fix: fix`.
    public var description: String {
        message + (state.map { "; \($0.sentence)" } ?? "") + (fix.map { ". Fix: \($0)" } ?? "")
    }
}

extension MigrationError {
    /// `error` as a migration error that says where the store stands: a plan runner's errors all
    /// carry the store's state, whichever module raised them.
    static func from(_ error: Error, state: StoreState) -> MigrationError {
        var result = converting(error)
        result.state = state
        return result
    }

    /// `error` as a migration error of the kind every command reports it with: a store's error
    /// as `store`, a model file's as `modelFile`.
    static func converting(_ error: Error) -> MigrationError {
        switch error {
        case let error as MigrationError:
            return error
        case let error as StoreError:
            return MigrationError(.store, "\(error.path): \(error.problem)", fix: error.fix)
        case let error as ModelFileError:
            var located = error
            located.fix = nil
            return MigrationError(.modelFile, located.description, fix: error.fix)
        default:
            return MigrationError(.store, "\(error)")
        }
    }
}
