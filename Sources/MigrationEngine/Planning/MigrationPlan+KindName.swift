extension MigrationPlan.Kind {
    /// A step's kind as reports and screens name it (`lightweight`, `mapping`, `handler`), with
    /// what they say differently for each kind, so that no caller compares a kind's text.
    public enum Name: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
        case lightweight, mapping, handler

        /// The name, as `rawValue`.
        public var description: String { rawValue }

        /// `A → B`, or `at A` for a handler, which leaves the store at its version.
        public func versions(from source: String, to destination: String, arrow: String = "→") -> String {
            self == .handler ? "at \(source)" : "\(source) \(arrow) \(destination)"
        }

        /// How a done step was done, in the words its progress line used, from its report's
        /// ``MigrationReport/passes``.
        public func how(passes: [String]) -> String {
            switch self {
            case .lightweight: return "lightweight, in place"
            case .mapping: return "mapping: " + passes.joined(separator: " then ")
            case .handler: return passes.joined(separator: "; ")
            }
        }
    }
}

extension MigrationPlan.Step {
    /// `A → B`, or `at A` for a handler (``MigrationPlan/Kind/Name/versions(from:to:arrow:)``).
    public var versions: String { kind.id.versions(from: source.name, to: destination.name) }
}
