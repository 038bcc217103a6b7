import ObjectModel

/// The stages an app registers with iOS 17's `NSStagedMigrationManager`, checked as Core Data
/// checks them, and the steps they make for a store: inferred steps and each custom stage's
/// handlers, in order (``MigrationStrategy/staged(_:)``).
///
/// What Core Data does, and so what Chrysalis does (Apple's `NSStagedMigrationManager`,
/// `NSLightweightMigrationStage` and `NSCustomMigrationStage` documentation; the Apple Developer
/// Forums threads 734693 and 804902, which record Core Data's answers to many stage lists):
/// - No version checksum may be named twice across stages ("Duplicate version checksums across
///   stages detected."), except that a custom stage may start where the one before it ends.
/// - Every checksum must be a version of the model, and so must the store's
///   ("Cannot use staged migration with an unknown model version.", 134504).
/// - Stages go forward through the versions ("A store file cannot be migrated backwards with
///   staged migration.").
/// - From the stage that names the store's version on, lightweight stages in a row act as one:
///   the store is inferred straight to where the next custom stage starts, or to the target at
///   the end. A custom stage runs its `willMigrate`, its own inferred step, then its `didMigrate`.
///   A step Core Data cannot infer is refused ("missing mapping model").
public struct StagedMigration: Sendable {
    /// The stages, in the order the app registers them.
    public let stages: [MigrationStage]

    /// The stages an app registers, checked as `NSStagedMigrationManager(_:)` checks them.
    ///
    /// - Parameter stages: The stages, in order.
    /// - Throws: A ``MigrationError`` when the list is empty or names a version checksum twice.
    public init(_ stages: [MigrationStage]) throws {
        guard !stages.isEmpty else {
            throw MigrationError(
                .wrongModel, "a staged migration needs at least one stage",
                fix: "register the stages from the oldest version to the current one")
        }
        var named: [String: Int] = [:]
        for (index, stage) in stages.enumerated() {
            if case .lightweight(let checksums) = stage, checksums.isEmpty {
                throw MigrationError(
                    .wrongModel, "stage \(index + 1) (\(stage.label)) names no version",
                    fix: "give it the version checksums it migrates")
            }
            for checksum in Set(stage.checksums) {
                // A custom stage may start where the custom stage before it ends: one model between two stages.
                let chained: Bool
                if index > 0, case .custom(let previous) = stages[index - 1], case .custom(let this) = stage {
                    chained = previous.destinationChecksum == checksum && this.sourceChecksum == checksum
                } else {
                    chained = false
                }
                if let earlier = named[checksum], !chained {
                    throw MigrationError(
                        .wrongModel,
                        """
                        stages \(earlier + 1) and \(index + 1) both name the version checksum \(checksum); Core \
                        Data refuses the list: \"Duplicate version checksums across stages detected.\"
                        """,
                        fix: "name each version in one stage only")
                }
                named[checksum] = index
            }
        }
        self.stages = stages
    }

    /// A piece of the route a staged migration takes.
    enum Part {
        /// An inferred step, and why the stages take it.
        case inferred(ModelBundle.Version, ModelBundle.Version, String)
        /// A custom stage's handler.
        case handler(StageHandlerStep)
    }

    /// The steps from `start` to `end`, by the stages.
    func route(from start: ModelBundle.Version, to end: ModelBundle.Version, bundle: ModelBundle) throws -> [Part] {
        let versions = StageVersions(bundle: bundle, stages: stages)
        try versions.requireForward()
        guard let startIndex = bundle.versions.firstIndex(of: start), let endIndex = bundle.versions.firstIndex(of: end)
        else { return [] }
        guard let first = versions.firstStage(naming: start.versionChecksum) else {
            throw versions.unknown("the store's version, \(start.name)", checksum: start.versionChecksum)
        }
        guard versions.names(end.versionChecksum) else {
            throw MigrationError(
                .wrongModel, "no stage names \(end.name), the version the migration must reach",
                fix: "add \(end.name)'s version checksum (\(end.versionChecksum)) to the last stage")
        }
        var parts: [Part] = [], at = startIndex
        for case .custom(let stage) in stages[first...] {
            let (from, to) = (try versions.index(stage.sourceChecksum), try versions.index(stage.destinationChecksum))
            if to <= at { continue }  // the store is past this stage already
            if to > endIndex { break }  // beyond the target (`--to`)
            guard from >= at else {
                throw MigrationError(
                    .wrongModel,
                    """
                    the store is at \(bundle.versions[at].name), inside \(MigrationStage.custom(stage).label); \
                    Core Data says \"A store file cannot be migrated backwards with staged migration.\"
                    """,
                    fix: "begin the stage at the store's version or before it")
            }
            parts += Self.parts(of: stage, from: from, to: to, at: at, versions: bundle.versions)
            at = to
        }
        if at < endIndex {
            parts.append(.inferred(bundle.versions[at], end, "staged: lightweight, inferred straight to \(end.name)"))
        }
        return parts
    }

    /// The steps of the custom `stage` from version `from` to `to` for a store at version `at`:
    /// inferred to where it starts, its `willMigrate`, its own step, its `didMigrate`.
    private static func parts(
        of stage: CustomMigrationStage, from: Int, to: Int, at: Int, versions: [ModelBundle.Version]
    ) -> [Part] {
        let label = MigrationStage.custom(stage).label
        var parts: [Part] = []
        if from > at {
            let reason = "staged: lightweight, inferred straight to \(versions[from].name), where the \(label) starts"
            parts.append(.inferred(versions[at], versions[from], reason))
        }
        if let handler = stage.willMigrate {
            parts.append(
                .handler(
                    StageHandlerStep(moment: .willMigrate, stage: label, version: versions[from], handler: handler)))
        }
        parts.append(.inferred(versions[from], versions[to], "staged: the \(label)'s own step, inferred"))
        if let handler = stage.didMigrate {
            parts.append(
                .handler(StageHandlerStep(moment: .didMigrate, stage: label, version: versions[to], handler: handler)))
        }
        return parts
    }
}
