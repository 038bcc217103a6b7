/// Policies by the names mapping models use. Real mapping models name them bare
/// (`MHWBookToBookPolicy`) or module-qualified (`App.PublicationToPublicationMigrationPolicy`);
/// either finds a policy registered under either form.
public struct PolicyRegistry: Sendable {
    private var factories: [String: @Sendable () -> EntityMigrationPolicy] = [:]

    /// An empty registry.
    public init() {}

    /// Registers `make` under `name`. A name registered twice is a programming error and stops
    /// with a message, as registering two policies for one mapping would leave one of them unused
    /// without a word.
    ///
    /// - Parameters:
    ///   - name: The policy's name as mapping models write it, bare or module-qualified.
    ///   - make: Makes a new policy each time one is asked for.
    public mutating func register(_ name: String, _ make: @escaping @Sendable () -> EntityMigrationPolicy) {
        precondition(factories[name] == nil, "a policy is registered twice under \(name): register each name once")
        factories[name] = make
    }

    /// A new policy for `name`, matching bare and module-qualified names.
    ///
    /// - Parameter name: The name a mapping model gives, bare or module-qualified.
    /// - Returns: A new policy, or `nil` when none is registered under the name in either form.
    public func policy(named name: String) -> EntityMigrationPolicy? {
        if let make = factories[name] { return make() }
        let bare = Self.bare(name)
        return factories.first { Self.bare($0.key) == bare }.map { $0.value() }
    }

    /// Whether the policy registered for `name` creates its destination's relationships itself,
    /// row by row, rather than with Core Data's default (a progress budget's cost of stage 2).
    func createsOwnRelationships(_ name: String) -> Bool {
        policy(named: name).map { !$0.usesDefaultRelationships } ?? false
    }

    /// The registered names.
    public var names: [String] { factories.keys.sorted() }

    private static func bare(_ name: String) -> Substring {
        name.split(separator: ".").last ?? Substring(name)
    }
}
