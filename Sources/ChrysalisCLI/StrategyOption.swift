import ArgumentParser
import MigrationEngine

/// `--strategy`, as `plan`, `migrate`, `console` and `check-history` take it: the way the app
/// migrates its store on devices (``MigrationStrategy``), so that what Chrysalis proves on Linux
/// is what happens on the phone. `--stepwise` is the short form of `--strategy iterative`.
enum StrategyName: String, CaseIterable, ExpressibleByArgument {
    case automatic, iterative, progressive, staged

    /// The help `--strategy` shows: each strategy with its evidence, and the default.
    static let help = ArgumentHelp(
        "How the app migrates its store: automatic, iterative, progressive (the default) or staged.",
        discussion: """
            automatic: Core Data's automatic migration, exactly: the mapping model made for the store's model and the \
            target (found by their hashes), else one step inferred straight to the target, else refused as Core Data \
            refuses it. It never chains mapping models.
            iterative: one step per consecutive pair of versions, the mapping model for the pair where one is given, \
            inferred otherwise: what an app's own iterative migrator does (--stepwise says the same).
            progressive: Chrysalis's own chaining: a mapping model's step wherever one given starts at the version \
            reached, one inferred step straight across each stretch between them.
            staged: the stages the app registers, as iOS 17's NSStagedMigrationManager runs them, their handlers \
            included; only in an app's own build of the command line (Chrysalis.main(stages:)).
            """,
        valueName: "strategy")

    /// `--stepwise` with another strategy is a usage error.
    static func validate(_ name: StrategyName?, stepwise: Bool) throws {
        if stepwise, let name, name != .iterative {
            throw ValidationError("--stepwise is --strategy iterative: it cannot go with --strategy \(name.rawValue)")
        }
    }

    /// The strategy to plan with, `--stepwise` folded in.
    static func strategy(_ name: StrategyName?, stepwise: Bool) throws -> MigrationStrategy {
        try validate(name, stepwise: stepwise)
        switch stepwise ? .iterative : name ?? .progressive {
        case .automatic: return .automatic
        case .iterative: return .iterative
        case .progressive: return .progressive
        case .staged:
            guard let stages = Registration.current.stages else {
                throw MigrationError(
                    .wrongModel,
                    "--strategy staged runs the stages an app registers, and this build of the command line has none",
                    fix:
                        """
                        build the app's own command line with its stages (Chrysalis.main(stages:), as \
                        Examples/StagedMigrator does), or see `chrysalis demo staged`
                        """
                )
            }
            return .staged(stages)
        }
    }
}
