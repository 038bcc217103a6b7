import Foundation
import ObjectModel
import SQLiteStore

/// A store whose hashes no version of the bundle has, read as the model it archived itself.
///
/// Core Data keeps the model a store was saved with in `Z_MODELCACHE`; when no model it is given
/// matches the store's `NSStoreModelVersionHashes`, its automatic migration takes that archived
/// model as the source and infers a mapping straight to the destination (Wire's
/// `store2-65-0.wiredatabase`, written by a build whose model differs from the bundle's 2.65.0, is
/// migrated this way by the app's own tests with Core Data). Chrysalis does the same, and only
/// when the archived model reproduces every hash the store records: a cache that does not is not
/// the store's model, and the store is refused as before. The inference pairs properties by the
/// archived model's names and renaming identifiers, as Core Data's does.
enum OwnModelSource {
    /// The name the plan, the journal and every message give the store's own model.
    static let name = PersistentStore.cachedModelName

    /// The store's own model as the plan's source version, or `nil` when it has none that
    /// reproduces its hashes. A strategy that walks the bundle's versions from the store's
    /// (iterative, staged) has none to start from here: it is refused with the way that works.
    static func version(
        of path: String, store: PersistentStore, hashes: [String: Data], bundle: ModelBundle,
        strategy: MigrationStrategy
    ) throws -> ModelBundle.Version? {
        guard let model = try? store.cachedModel(), VersionHash.entityHashes(of: model) == hashes else { return nil }
        guard strategy.infersStraight else {
            throw MigrationError(
                .wrongModel,
                "\(path) is at no version of \(bundle.name), so the \(strategy) strategy has no version to start from",
                fix:
                    """
                    use --strategy automatic: Core Data's automatic migration infers straight from \(name) to the \
                    target
                    """
            )
        }
        return ModelBundle.Version(name: name, model: model)
    }

    /// The one step: inferred straight from the store's own model to `end`.
    static func leg(from start: ModelBundle.Version, to end: ModelBundle.Version, bundle: ModelBundle)
        -> MigrationStrategy.Leg
    {
        let nearest = bundle.nearestVersion(toHashes: start.entityHashes)
        let near =
            nearest.map {
                "; nearest is \($0.version.name), entities differing: \($0.differingEntities.joined(separator: ", "))"
            } ?? ""
        return MigrationStrategy.Leg(
            source: start, destination: end, mappings: [],
            reason:
                """
                no version of \(bundle.name) has the store's hashes\(near): inferred straight from \(name) to \
                \(end.name), as Core Data does
                """
        )
    }

    /// Refuses the step from the store's own model when it would drop most of the store's
    /// entities (``InferenceChecks/foreignModel``): the bundle is then most likely another app's.
    /// Names every entity lost with its rows, and the bundle's nearest version.
    static func requireKinship(_ step: MigrationPlan.Step, store path: String, bundle: ModelBundle) throws {
        let entities = step.source.model.entities.count
        let dropped = step.changes.filter { $0.kind == .entityRemoved }
        guard entities > 0, dropped.count * 2 > entities else { return }
        let rows = dropped.compactMap(\.rows).reduce(0, +)
        let nearest =
            bundle.nearestVersion(toHashes: step.source.entityHashes).map {
                "; the nearest version, \($0.version.name), differs in \($0.differingEntities.count) entities"
            } ?? ""
        throw MigrationError(
            .wrongModel,
            """
            \(path) is at no version of \(bundle.name), and migrating it to \(step.destination.name) would drop \
            \(dropped.count) of its \(entities) entities (\(rows) row\(rows == 1 ? "" : "s")): \
            \(dropped.map(\.sentence).joined(separator: "; "))\(nearest); this looks like another app's model \
            bundle
            """,
            fix:
                """
                check --model: give the bundle this store was made with; if dropping that data is what you want, \
                say so with --accept-foreign-model
                """
        )
    }
}
