import Foundation

/// Names one piece of state a policy keeps for the pass (``MigrationManager/state(_:_:)``): the
/// type is the key, and `Value` is what the state holds, so each read is typed.
///
/// ```swift
/// enum AuthorsByName: MigrationStateKey { typealias Value = [String: ObjectID] }
/// ```
public protocol MigrationStateKey {
    /// What the state holds.
    associatedtype Value
}

/// A policy's state, held by reference: the manager keeps the box and hands back the same one
/// every time, so `box.value[name] = id` changes the value in place, O(1), instead of copying it
/// out of a dictionary and back as `userInfo` does.
public final class MigrationStateBox<Value> {
    /// The state; change it in place.
    public var value: Value

    init(_ value: Value) { self.value = value }
}

extension MigrationManager {
    /// The state `key` names, made with `initial` the first time it is asked for; kept for the
    /// pass (one mapping model), as Core Data's `userInfo` is kept for its manager.
    ///
    /// Per-row state — a uniquing table of destination objects by name, counters — belongs here
    /// rather than in ``userInfo``: a dictionary read out of `[String: Any]`, changed and stored
    /// back is copied whole each time, so n rows would cost n².
    ///
    /// ```swift
    /// let authors = manager.state(AuthorsByName.self) { [:] }
    /// let author = try authors.value[name] ?? manager.insertDestination("Author", ["name": .string(name)])
    /// authors.value[name] = author
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key type that names the state.
    ///   - initial: Makes the state the first time it is asked for.
    /// - Returns: The state's box, the same one on every call in the pass.
    /// - Throws: What `initial` throws.
    public func state<Key: MigrationStateKey>(_ key: Key.Type, _ initial: () throws -> Key.Value) rethrows
        -> MigrationStateBox<Key.Value>
    {
        let id = ObjectIdentifier(key)
        if let box = stateBoxes[id] as? MigrationStateBox<Key.Value> { return box }
        let box = MigrationStateBox(try initial())
        stateBoxes[id] = box
        return box
    }
}

/// State kept for a whole run: every step of a plan, and every pass of each step, share it. What
/// an app that migrates step by step keeps in a variable of its migrator (WordPress's accounts
/// by user name, looked up in one step's `end` and used in a later step's) belongs here, not in
/// a process-wide variable that a second run in the same process would see.
///
/// ``MigrationOptions/runState`` holds it; one plan run passes the same options to each step.
public final class MigrationRunState: @unchecked Sendable {
    private var boxes: [ObjectIdentifier: Any] = [:]
    private let lock = NSLock()

    /// State for one run.
    public init() {}

    /// The state `key` names, made with `initial` the first time any step asks for it.
    ///
    /// - Parameters:
    ///   - key: The key type that names the state.
    ///   - initial: Makes the state the first time any step asks for it.
    /// - Returns: The state's box, the same one on every call in the run.
    /// - Throws: What `initial` throws.
    public func state<Key: MigrationStateKey>(_ key: Key.Type, _ initial: () throws -> Key.Value) rethrows
        -> MigrationStateBox<Key.Value>
    {
        lock.lock()
        defer { lock.unlock() }
        let id = ObjectIdentifier(key)
        if let box = boxes[id] as? MigrationStateBox<Key.Value> { return box }
        let box = MigrationStateBox(try initial())
        boxes[id] = box
        return box
    }
}

extension MigrationManager {
    /// The state `key` names for the whole run, shared by every step and pass of it (made with
    /// `initial` the first time any of them asks): ``state(_:_:)`` is kept for one pass only.
    ///
    /// ```swift
    /// enum AccountsByUser: MigrationStateKey { typealias Value = [String: ObjectID] }
    /// let accounts = manager.runState(AccountsByUser.self) { [:] }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key type that names the state.
    ///   - initial: Makes the state the first time any step or pass asks for it.
    /// - Returns: The state's box, the same one on every call in the run.
    /// - Throws: What `initial` throws.
    public func runState<Key: MigrationStateKey>(_ key: Key.Type, _ initial: () throws -> Key.Value) rethrows
        -> MigrationStateBox<Key.Value>
    {
        try run.state(key, initial)
    }
}
