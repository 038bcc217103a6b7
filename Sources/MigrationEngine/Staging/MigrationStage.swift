/// Work an app does on its store during a staged migration, with objects
/// (``MigrationContext``): Core Data's `willMigrateHandler` and `didMigrateHandler`. What it
/// throws stops the plan, which puts the original store back.
public typealias StageHandler = @Sendable (MigrationContext) throws -> Void

/// One stage of a staged migration, as iOS 17's `NSMigrationStage` subclasses describe it. A
/// stage names model versions by their version checksums
/// (`ModelBundle.Version.versionChecksum`, `NSManagedObjectModel.versionChecksum`, or
/// the checksum in the compiled model's `VersionInfo.plist`).
public enum MigrationStage: Sendable {
    /// `NSLightweightMigrationStage`: versions Core Data migrates by inference. A store at any of
    /// them is inferred straight to the last version before the next custom stage (or to the
    /// target), as Core Data does: several lightweight stages in a row act as one.
    case lightweight([String])
    /// `NSCustomMigrationStage`: one inferred step between two versions, with handlers run before
    /// it (on the store at the first) and after it (on the store at the second).
    case custom(CustomMigrationStage)

    /// Every version checksum the stage names.
    var checksums: [String] {
        switch self {
        case .lightweight(let checksums): return checksums
        case .custom(let stage): return [stage.sourceChecksum, stage.destinationChecksum]
        }
    }

    /// How messages name the stage: its label, or its kind.
    var label: String {
        switch self {
        case .lightweight: return "lightweight stage"
        case .custom(let stage): return stage.label.isEmpty ? "custom stage" : "custom stage \"\(stage.label)\""
        }
    }
}

/// `NSCustomMigrationStage`: a migration between two versions that Core Data infers, around which
/// the app's handlers prepare the data (`willMigrate`, on the store still at the source version)
/// and finish it (`didMigrate`, on the store at the destination version).
public struct CustomMigrationStage: Sendable {
    /// The version checksum of the model migrated from (`currentModel`).
    public var sourceChecksum: String
    /// The version checksum of the model migrated to (`nextModel`).
    public var destinationChecksum: String
    /// What the stage is for, said in progress and messages (`NSMigrationStage.label`).
    public var label: String
    /// Run on the store at the source version, before the step (`willMigrateHandler`).
    public var willMigrate: StageHandler?
    /// Run on the store at the destination version, after the step (`didMigrateHandler`).
    public var didMigrate: StageHandler?

    /// A custom stage from the version with checksum `source` to the one with checksum `destination`.
    ///
    /// - Parameters:
    ///   - source: The version checksum of the model the stage migrates from.
    ///   - destination: The version checksum of the model it migrates to.
    ///   - label: What the stage is for, shown in progress and messages.
    ///   - willMigrate: Work on the store at `source`, before the step.
    ///   - didMigrate: Work on the store at `destination`, after the step.
    public init(
        from source: String, to destination: String, label: String = "", willMigrate: StageHandler? = nil,
        didMigrate: StageHandler? = nil
    ) {
        (sourceChecksum, destinationChecksum, self.label) = (source, destination, label)
        (self.willMigrate, self.didMigrate) = (willMigrate, didMigrate)
    }
}
