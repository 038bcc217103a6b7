import Synchronization

/// Lets a caller stop a running migration between chunks; the migration then rolls back.
public final class CancellationToken: Sendable {
    private let flag = Mutex(false)

    /// A token that has not been cancelled.
    public init() {}

    /// Asks the migration to stop at its next chunk boundary.
    public func cancel() { flag.withLock { $0 = true } }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { flag.withLock { $0 } }

    /// Throws the cancellation error when ``cancel()`` was called.
    ///
    /// - Throws: A `MigrationError` of kind `.cancelled` when `cancel()` was called.
    public func check() throws {
        if isCancelled { throw MigrationError(.cancelled, "the migration was cancelled") }
    }
}
