import ArgumentParser
import Foundation
import MigrationConsole
import MigrationEngine
import ObjectModel
import SQLiteStore

/// The options `plan` and `migrate` share: which store, which bundle, which mapping models,
/// which target version.
struct PlanOptions: ParsableArguments {
    @Argument(help: "The store to migrate.", completion: .file())
    var store: String

    @Option(help: "The model bundle (.xcdatamodeld, or .momd with its .mom files).", completion: .directory)
    var model: String

    @Option(
        name: [.customLong("mappings"), .customLong("mapping")],
        help: ArgumentHelp(
            """
            A mapping model (.xcmappingmodel, a compiled .cdm, or .mapping.yaml), or a folder or app bundle \
            holding them; repeatable.
            """,
            discussion:
                """
                Several for one pair of versions run as passes in the order given (by path within a folder). A \
                .cdm names no versions: it is matched to a step by the entity hashes it stores, as Core Data \
                matches it. Mapping models that fit no step are listed as unused.
                """
        ),
        completion: .file())
    var mappings: [String] = []

    @Option(name: .customLong("to"), help: "The version to migrate to (default: the bundle's current version).")
    var target: String?

    @Flag(
        help: ArgumentHelp(
            "Log the plan's decisions and every SQL statement with its time, to standard error.",
            discussion: "CHRYSALIS_LOG=debug (decisions) or trace (decisions and SQL) does the same for any command."))
    var verbose = false

    @Option(help: StrategyName.help)
    var strategy: StrategyName?

    @Option(help: OrderOption.help)
    var order: String?

    @Flag(help: "Visit every version, one step per consecutive pair: --strategy iterative.")
    var stepwise = false

    @Flag(
        help: ArgumentHelp(
            "Refuse a relationship whose destination entity changes, where Core Data infers it.",
            discussion:
                """
                Core Data infers such a step when links would point to objects that become nothing (their \
                entity removed): the links are dropped. Links to objects that become another entity need a \
                mapping model anyway. With this flag every such change needs one, stricter than Core Data.
                """
        ))
    var strictDestinations = false

    @Flag(
        help: ArgumentHelp(
            "Migrate a store at no version of the bundle even when that drops most of its entities.",
            discussion:
                """
                A store whose hashes no version of --model has is read as its own archived model (Z_MODELCACHE) \
                and inferred straight to the target, as Core Data does. When that would drop more than half of its \
                entities, the bundle is most likely another app's: the plan is refused, naming each entity lost \
                with its rows and the nearest version. This flag says the loss is meant.
                """
        ))
    var acceptForeignModel = false

    /// A store reached through a symbolic link is the file it links to: that file is migrated in
    /// place, its backup and work files made beside it, and the link kept.
    mutating func validate() throws {
        try StrategyName.validate(strategy, stepwise: stepwise)
        store = StorePath.resolved(store)
    }

    /// The bundle and every mapping model named, folders expanded; also the names of the
    /// mappings named one by one (those must fit a step).
    func load() throws -> (ModelBundle, [MappingModel], [String]) {
        let bundle = try OrderOption.apply(order, to: try ModelPath.load(model).requireBundle())
        let (models, explicitNames) = try Self.loadMappings(mappings)
        return (bundle, models, explicitNames)
    }

    /// Every mapping model at `mappings` (files, or folders searched at any depth), and the
    /// names of those named one by one.
    static func loadMappings(_ mappings: [String]) throws -> ([MappingModel], [String]) {
        var files: [String] = [], explicit: [String] = []
        for path in mappings {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw MappingError(
                    file: path, problem: "does not exist", fix: "give a mapping file or a folder of them")
            }
            let isMappingBundle = path.hasSuffix(".xcmappingmodel") || path.hasSuffix(".xcmappingmodel/")
            if isDirectory.boolValue && !isMappingBundle {
                files += Self.mappingFiles(in: path)
            } else {
                files.append(path)
                explicit.append(path)
            }
        }
        let models = try files.map(MappingFile.read)
        return (models, zip(files, models).filter { explicit.contains($0.0) }.map(\.1.name))
    }

    /// Every mapping model under `folder`, at any depth (an app bundle keeps its `.cdm` files in
    /// `Contents/Resources` on macOS, at its top on iOS), sorted by path.
    static func mappingFiles(in folder: String) -> [String] {
        let root = URL(fileURLWithPath: folder)
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var found: [String] = []
        for case let url as URL in walk {
            let name = url.lastPathComponent
            // Hidden files and editors' leftovers (`.#X.mapping.yaml`, `#X#`, `X~`, swap files)
            // are not mapping models someone gave; reading them would run their passes again.
            if name.hasPrefix(".") || name.hasPrefix("#") || name.hasSuffix("~") {
                walk.skipDescendants()
                continue
            }
            if name.hasSuffix(".xcmappingmodel") || name.hasSuffix(".cdm") || name.hasSuffix(".mapping.yaml")
                || name.hasSuffix(".mapping.yml")
            {
                found.append(url.path)
            }
            // A bundle's insides are read by its reader, not searched.
            if name.hasSuffix(".xcmappingmodel") || name.hasSuffix(".xcdatamodeld") || name.hasSuffix(".momd") {
                walk.skipDescendants()
            }
        }
        return found.sorted()
    }

    func plan() throws -> (ModelBundle, MigrationPlan) {
        let (bundle, mappings, explicit) = try load()
        let plan = try make(bundle, mappings)
        if let error = plan.unusedError(explicit) { throw error }
        try plan.requirePolicies(Registration.current.policies)
        return (bundle, plan)
    }

    /// What the console opens on whatever the plan says: the plan, or, when none can be made, a
    /// plan of no steps from the version the store's hashes name; and why it cannot run, when
    /// it cannot (the error `migrate` would end with, and each step a policy this build lacks
    /// stops). Throws only when the bundle, the mapping models or the store cannot be read.
    func browse() throws -> (ModelBundle, MigrationPlan, Blocked?) {
        let (bundle, mappings, explicit) = try load()
        let target = self.target ?? bundle.currentVersionName
        let plan: MigrationPlan
        do {
            plan = try make(bundle, mappings)
        } catch {
            let hashes = try PersistentStore.open(at: store).metadata().versionHashes
            let version = bundle.versions.first { $0.entityHashes == hashes }?.name ?? "no version of \(bundle.name)"
            return (bundle, .none(from: version, to: target), Blocked(reason: "\(error)"))
        }
        if let error = plan.unusedError(explicit) { return (bundle, plan, Blocked(reason: "\(error)")) }
        let unregistered = plan.unregisteredPolicies(Registration.current.policies)
        guard !unregistered.isEmpty else { return (bundle, plan, nil) }
        var steps: [Int: String] = [:]
        for (index, names) in unregistered {
            steps[index] = "\(names.joined(separator: "; ")), a policy this build does not register"
        }
        let error = Result { try plan.requirePolicies(Registration.current.policies) }
        guard case .failure(let failure) = error else { return (bundle, plan, nil) }
        return (bundle, plan, Blocked(reason: "\(failure)", steps: steps))
    }

    /// The plan for `bundle` and `mappings` with these options, the mapping files read noted.
    private func make(_ bundle: ModelBundle, _ mappings: [MappingModel]) throws -> MigrationPlan {
        var plan = try MigrationPlan.make(
            store: store, bundle: bundle, mappings: mappings, to: target,
            strategy: try StrategyName.strategy(strategy, stepwise: stepwise),
            checks: InferenceChecks(strictDestinations ? [.destinationChanges] : []).union(
                acceptForeignModel ? [] : [.foreignModel]))
        if !mappings.isEmpty {
            // Which files --mappings read, so a folder's contents are never a surprise.
            plan.notes.append("mapping models read: " + mappings.map { $0.file ?? $0.name }.joined(separator: ", "))
        }
        return plan
    }
}
