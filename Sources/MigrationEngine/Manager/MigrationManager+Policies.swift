extension MigrationManager {
    /// The policy of every entity mapping of the pass, found by name; remembered for the pass.
    func resolvePolicies() throws -> [EntityMigrationPolicy] {
        let resolved = try mappingModel.entityMappings.map { mapping -> EntityMigrationPolicy in
            guard let name = mapping.policyName else { return DefaultEntityMigrationPolicy() }
            guard let policy = self.policies.policy(named: name) else {
                throw MigrationError(
                    .missingPolicy,
                    """
                    entity mapping \(mapping.name) of \(mappingModel.name) names policy \(name), which is not \
                    registered
                    """,
                    fix:
                        """
                        register a policy under that name (registered: \
                        \(self.policies.names.isEmpty ? "none" : self.policies.names.joined(separator: ", ")))
                        """
                )
            }
            return policy
        }
        passState.policiesByMapping = Dictionary(
            zip(mappingModel.entityMappings.map(\.name), resolved), uniquingKeysWith: { first, _ in first })
        return resolved
    }

    /// Whether `mapping`'s policy leaves relationships to Core Data's default.
    func usesDefaultRelationships(_ mapping: EntityMapping) -> Bool {
        passState.policiesByMapping[mapping.name]?.usesDefaultRelationships ?? (mapping.policyName == nil)
    }
}
