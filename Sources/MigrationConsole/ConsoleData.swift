import Foundation
import MigrationEngine
import ObjectModel

extension ConsoleState {
    /// The state for a store about to be migrated with `plan`: every version of `bundle` (with
    /// its entities and its changes from the previous one) and every step's entity mappings.
    public init(store path: String, bundle: ModelBundle, plan: MigrationPlan, width: Int, height: Int, glyphs: Glyphs) {
        let versions = bundle.versions.enumerated().map { index, version -> Version in
            let hashes = version.entityHashes
            let entities = version.model.entities.sorted { $0.name < $1.name }.map { entity in
                Entity(name: entity.name, parent: entity.parentName, hash: hashes[entity.name]?.base64EncodedString() ?? "",
                       properties: entity.attributes.map { "\($0.name): \($0.attributeType.displayName)\($0.isOptional ? "?" : "")" }
                           + entity.relationships.map { "\($0.name) → \($0.destinationEntityName)\($0.isToMany ? " (to-many)" : "")" })
            }
            var changes: [String] = []
            if index > 0 {
                let inference = InferredMapping(from: bundle.versions[index - 1], to: version)
                changes = inference.changes.map(\.description) + inference.blockers.map { "needs a mapping model: \($0.description)" }
            }
            return Version(name: version.name, isCurrent: version.name == bundle.currentVersionName, isStore: version.name == plan.storeVersion,
                           entities: entities, changes: changes)
        }
        let steps = plan.steps.map { step -> Step in
            var mappings: [Mapping] = []
            if case .mapping(let models) = step.kind {
                for model in models {
                    let resolved = (try? model.resolved(source: step.source.model, destination: step.destination.model)) ?? model
                    mappings += resolved.entityMappings.map { entity in
                        Mapping(pass: model.name, name: entity.name, kind: entity.kind.rawValue, source: entity.sourceEntity, destination: entity.destinationEntity,
                                policy: entity.policyName, properties: entity.propertyMappings.map { ($0.name, $0.expression?.description ?? "(unset)") })
                    }
                }
            }
            return Step(from: step.source.name, to: step.destination.name, kind: step.kind.name, mappings: mappings, findings: step.findings)
        }
        self.init(storeName: URL(fileURLWithPath: path).lastPathComponent, bundleName: bundle.name, storeVersion: plan.storeVersion,
                  targetVersion: plan.targetVersion, versions: versions, steps: steps, width: width, height: height, glyphs: glyphs)
    }
}
