import Foundation

/// One migration's progress notifications: the engine posts with this channel as the
/// notification's object, so an observer of one migration never sees another's (two migrations
/// in one process, or tests running in parallel).
public final class ProgressChannel: Sendable {
    /// Where a progress value travels in a notification's `userInfo` (read it through
    /// `Notification.migrationProgress`).
    static let userInfoKey = "progress"

    /// A channel no one else posts on.
    public init() {}

    /// Posts `progress` synchronously to this channel's observers (on the caller's thread).
    func post(_ progress: MigrationProgress) {
        NotificationCenter.default.post(
            name: MigrationProgress.notification, object: self, userInfo: [Self.userInfoKey: progress])
    }

    /// Calls `body` with every progress value posted on this channel, on the posting (engine)
    /// thread, until the returned observation is cancelled or released.
    ///
    /// - Parameter body: Called with each progress value, on the engine's thread.
    /// - Returns: The observation; cancel or release it to stop.
    public func observe(_ body: @escaping @Sendable (MigrationProgress) -> Void) -> ProgressObservation {
        let token = NotificationCenter.default.addObserver(
            forName: MigrationProgress.notification, object: self, queue: nil
        ) { note in
            if let progress = note.migrationProgress { body(progress) }
        }
        return ProgressObservation(token: token)
    }
}

/// A registration with a ``ProgressChannel``; observing stops when it is cancelled or released.
public final class ProgressObservation: @unchecked Sendable {
    // NotificationCenter's observer tokens are not Sendable; this one is only handed back to
    // NotificationCenter, which is thread-safe, under the lock.
    private let lock = NSLock()
    private var token: NSObjectProtocol?

    init(token: NSObjectProtocol) { self.token = token }

    /// Stops observing (safe to call more than once).
    public func cancel() {
        lock.withLock {
            if let token { NotificationCenter.default.removeObserver(token) }
            token = nil
        }
    }

    deinit { cancel() }
}
