import ObjectModel

/// What a plan must satisfy before its first step writes anything: a step that would fail half
/// way through a chain is refused at the start instead.
extension MigrationPlan {
    /// Every custom policy a mapping step names must be registered in `registry` (a bare name or
    /// a module-qualified one, as mapping models write them). Checked by `plan` and before a run.
    package func requirePolicies(_ registry: PolicyRegistry) throws {
        var missing: [String] = [], firstStep: String?
        for step in steps {
            guard case .mapping(let models) = step.kind else { continue }
            for model in models {
                for mapping in model.entityMappings {
                    guard let name = mapping.policyName, registry.policy(named: name) == nil else { continue }
                    let pair = "\(step.source.name) → \(step.destination.name)"
                    missing.append("\(model.name): \(mapping.name) names \(name) (step \(pair))")
                    firstStep = firstStep ?? pair
                }
            }
        }
        guard !missing.isEmpty else { return }
        let registered =
            registry.names.isEmpty ? "none is registered" : "registered: \(registry.names.joined(separator: ", "))"
        var error = MigrationError(
            .missingPolicy, "custom migration policies are not registered: \(missing.joined(separator: "; "))",
            fix:
                """
                register them through the Chrysalis library (see Examples/ and the README's \"your own \
                policies\"); \(registered)
                """
        )
        error.step = firstStep
        throw error
    }
}
