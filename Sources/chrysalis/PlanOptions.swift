import ArgumentParser
import Foundation
import MigrationEngine
import ObjectModel

/// The options `plan` and `migrate` share: which store, which bundle, which mapping models,
/// which target version.
struct PlanOptions: ParsableArguments {
    @Argument(help: "The store to migrate.", completion: .file())
    var store: String

    @Option(help: "The model bundle (.xcdatamodeld, or .momd with its .mom files).", completion: .directory)
    var model: String

    @Option(name: [.customLong("mappings"), .customLong("mapping")],
            help: "A mapping model (.xcmappingmodel or .mapping.yaml) or a folder of them; repeatable. Several for one pair of versions run as passes in the order given (by file name within a folder).",
            completion: .file())
    var mappings: [String] = []

    @Option(name: .customLong("to"), help: "The version to migrate to (default: the bundle's current version).")
    var target: String?

    /// The bundle and every mapping model named, folders expanded.
    func load() throws -> (ModelBundle, [MappingModel]) {
        let bundle = try ModelPath.load(model).requireBundle()
        var files: [String] = []
        for path in mappings {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw MappingError(file: path, problem: "does not exist", fix: "give a mapping file or a folder of them")
            }
            let isMappingBundle = path.hasSuffix(".xcmappingmodel") || path.hasSuffix(".xcmappingmodel/")
            if isDirectory.boolValue && !isMappingBundle {
                let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
                    .filter { $0.hasSuffix(".xcmappingmodel") || $0.hasSuffix(".mapping.yaml") || $0.hasSuffix(".mapping.yml") }
                files += names.map { URL(fileURLWithPath: path).appendingPathComponent($0).path }
            } else {
                files.append(path)
            }
        }
        return (bundle, try files.map(MappingFile.read))
    }

    func plan() throws -> (ModelBundle, MigrationPlan) {
        let (bundle, mappings) = try load()
        return (bundle, try MigrationPlan.make(store: store, bundle: bundle, mappings: mappings, to: target))
    }
}
