import ObjectModel

/// A custom stage's handler as a step of a staged plan: run on the store at `version`, before
/// the stage's own step (`willMigrate`) or after it (`didMigrate`). A step of its own, so that
/// its work shows as its own stage of the progress, the console's step mode stops after it, and
/// its changes are undone with the rest of the plan.
public struct StageHandlerStep: Sendable {
    /// When the handler runs.
    public enum Moment: String, Sendable {
        /// Before the stage's step, on the store at its source version.
        case willMigrate
        /// After the stage's step, on the store at its destination version.
        case didMigrate
    }

    /// When the handler runs.
    public let moment: Moment
    /// The stage the handler belongs to, as messages name it.
    public let stage: String
    /// The version the store is at while the handler runs.
    public let version: ModelBundle.Version
    let handler: StageHandler

    /// How progress and messages name the step: `willMigrate of the custom stage "Merge duplicates"`.
    public var name: String { "\(moment.rawValue) of the \(stage)" }

    /// Why the plan takes the step.
    var reason: String {
        let when = moment == .willMigrate ? "before its step" : "after its step"
        return "staged: the \(stage)'s \(moment.rawValue) handler, on the store at \(version.name) \(when)"
    }
}
