import Foundation
import MigrationEngine
import ObjectModel

/// The worked examples' files, shipped as package resources: model bundles and mapping models.
public enum DemoResources {
    /// The folder holding the resources.
    public static var root: URL { Bundle.module.resourceURL ?? Bundle.module.bundleURL }

    /// BookStore, five versions (worked-examples §1).
    public static var bookStoreBundle: URL { root.appendingPathComponent("BookStore.xcdatamodeld") }
    /// Recipes Version 1.0, 1.1 and 2.0 (worked-examples §3).
    public static var recipesBundle: URL { root.appendingPathComponent("Recipes.xcdatamodeld") }
    /// Groceries Model 3 and Model 4 (worked-examples §4).
    public static var groceriesBundle: URL { root.appendingPathComponent("Groceries.xcdatamodeld") }
    /// Shelf 1–3: authors whose names become unique, for the staged migration demo.
    public static var shelfBundle: URL { root.appendingPathComponent("Shelf.xcdatamodeld") }
    /// The objc.io Books example: the real Model1–3 bundle (worked-examples §2).
    public static var booksBundle: URL { root.appendingPathComponent("Books/Model.xcdatamodeld") }

    /// A YAML mapping model shipped with the demos (`BookStore3To4`, `BookStore4To5`, `Groceries3To4`).
    public static func mapping(_ name: String) throws -> MappingModel {
        try MappingYAMLReader.read(at: root.appendingPathComponent("Mappings/\(name).mapping.yaml"))
    }

    /// One of the real objc.io mapping models (`Model1_to_Model2`, `Model2_to_Model3`, `Model2_to_Model3_User`).
    public static func booksMapping(_ name: String) throws -> MappingModel {
        try XCMappingReader.read(at: root.appendingPathComponent("Books/\(name).xcmappingmodel"))
    }

    /// Every policy the demos' mapping models name, under those names.
    public static var policies: PolicyRegistry {
        var registry = PolicyRegistry()
        registry.register("PublicationToPublicationMigrationPolicy") { PublicationToPublicationMigrationPolicy() }
        registry.register("MHWBookToBookPolicy") { BookToBookPolicy() }
        registry.register("MHWUserToUserPolicy") { UserToUserPolicy() }
        return registry
    }
}
