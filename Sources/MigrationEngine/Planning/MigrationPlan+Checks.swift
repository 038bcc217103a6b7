import ObjectModel

/// What a plan must satisfy before its first step writes anything: a step that would fail half
/// way through a chain is refused at the start instead.
extension MigrationPlan {
    /// Every custom policy a mapping step names must be registered in `registry` (a bare name or
    /// a module-qualified one, as mapping models write them). Checked by `plan` and before a run.
    package func requirePolicies(_ registry: PolicyRegistry) throws {
        let unregistered = unregisteredPolicies(registry)
        let missing = unregistered.flatMap { index, names in
            names.map { "\($0) (step \(steps[index].source.name) → \(steps[index].destination.name))" }
        }
        let firstStep = unregistered.first.map { "\(steps[$0.step].source.name) → \(steps[$0.step].destination.name)" }
        guard !missing.isEmpty else { return }
        let registered =
            registry.names.isEmpty ? "none is registered" : "registered: \(registry.names.joined(separator: ", "))"
        var error = MigrationError(
            .missingPolicy, "custom migration policies are not registered: \(missing.joined(separator: "; "))",
            fix:
                """
                build a command line of your own that registers them, Chrysalis.main(policies:) (Examples/\
                BooksMigrator, README's \"Your own policies\"); \(registered)
                """
        )
        error.step = firstStep
        throw error
    }

    /// For each step whose mapping models name a custom policy `registry` lacks, in order, what
    /// names it (`Model21to22: PostToPost names PostMigrationPolicy`): the steps that cannot run.
    package func unregisteredPolicies(_ registry: PolicyRegistry) -> [(step: Int, names: [String])] {
        steps.enumerated().compactMap { index, step in
            guard case .mapping(let models) = step.kind else { return nil }
            let names = models.flatMap { model in
                model.entityMappings.compactMap { mapping -> String? in
                    guard let name = mapping.policyName, registry.policy(named: name) == nil else { return nil }
                    return "\(model.name): \(mapping.name) names \(name)"
                }
            }
            return names.isEmpty ? nil : (index, names)
        }
    }
}

extension MigrationPlan {
    /// What a later inferred step requires of rows earlier steps write (a new required value, a
    /// new uniqueness), which can only be checked when that step runs: `migrate` then refuses the
    /// plan if a row breaks it, and puts the original back. Empty when every requirement was
    /// checked against the store now (the first step's are, before the plan is made).
    public var requirementsCheckedWhenRun: [String] {
        steps.enumerated().dropFirst().flatMap { index, step -> [String] in
            guard case .lightweight(let inference) = step.kind else { return [] }
            return inference.requirements.map {
                "step \(index + 1) (\(step.source.name) → \(step.destination.name)): \($0.description)"
            }
        }
    }
}
