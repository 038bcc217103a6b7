import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// The expression cases of worked-examples §3 running in a real migration — compiled to SQL and
/// evaluated row by row — with the same results both ways.
final class ExpressionMigrationTests: XCTestCase {
    private func model(_ body: String) throws -> ManagedObjectModel {
        try ModelXMLReader.read(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">\(body)</model>
                """.utf8), file: "Recipes")
    }

    private func recipes() throws -> (ModelBundle.Version, ModelBundle.Version) {
        let v1 = try model(
            """
            <entity name="Chef"><attribute name="name" optional="YES" attributeType="String"/><attribute name="salary" optional="YES" attributeType="Double"/>
              <relationship name="recipes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Recipe" inverseName="chef" inverseEntity="Recipe"/></entity>
            <entity name="Recipe"><attribute name="name" optional="YES" attributeType="String"/><attribute name="temperature" optional="YES" attributeType="Double"/>
              <attribute name="size" optional="YES" attributeType="Integer 32"/>
              <relationship name="chef" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Chef" inverseName="recipes" inverseEntity="Chef"/>
              <relationship name="ingredients" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Ingredient" inverseName="recipe" inverseEntity="Ingredient"/></entity>
            <entity name="Ingredient"><attribute name="amount" optional="YES" attributeType="Double"/>
              <relationship name="recipe" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Recipe" inverseName="ingredients" inverseEntity="Recipe"/></entity>
            """)
        let v2 = try model(
            """
            <entity name="Chef"><attribute name="name" optional="YES" attributeType="String"/><attribute name="salary" optional="YES" attributeType="Double"/>
              <relationship name="recipes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Recipe" inverseName="chef" inverseEntity="Recipe"/></entity>
            <entity name="Recipe"><attribute name="name" optional="YES" attributeType="String"/><attribute name="temperatureC" optional="YES" attributeType="Double"/>
              <attribute name="size" optional="YES" attributeType="Integer 32"/><attribute name="chefName" optional="YES" attributeType="String"/>
              <attribute name="servings" optional="YES" attributeType="Integer 16" defaultValueString="4"/>
              <relationship name="chef" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Chef" inverseName="recipes" inverseEntity="Chef"/>
              <relationship name="ingredients" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Ingredient" inverseName="recipe" inverseEntity="Ingredient"/></entity>
            <entity name="Ingredient"><attribute name="totalCost" optional="YES" attributeType="Double"/>
              <relationship name="recipe" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Recipe" inverseName="ingredients" inverseEntity="Recipe"/></entity>
            """)
        return (.init(name: "Version 1.0", model: v1), .init(name: "Version 2.0", model: v2))
    }

    private let mapping = """
        source: Version 1.0
        destination: Version 2.0
        entityMappings:
          - source: Chef
            destination: Chef
            attributes:
              salary: $source.salary * 1.04
          - source: Recipe
            destination: Recipe
            filter: temperature > 100 AND name BEGINSWITH "B"
            attributes:
              temperatureC: ($source.temperature - 32.0) / 1.8
              size: $source.#size
              chefName: $source.chef.name
            relationships:
              chef: FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "ChefToChef", $source.chef)
          - name: IngredientToIngredient
            source: Ingredient
            destination: Ingredient
            attributes:
              totalCost: $source.amount
        """

    private func migrate(setBased: Bool) throws -> [[String]] {
        let (v1, v2) = try recipes()
        let path = try scratchDirectory().appendingPathComponent("Recipes.sqlite").path
        let store = try PersistentStore.create(at: path, model: v1.model)
        try store.writeObjects(StoreLayout(model: v1.model)) { writer in
            let chefs = try [("Ada", 1000.0), ("Brillat", 2500.0)].map {
                try writer.insert("Chef", ["name": .string($0.0), "salary": .double($0.1)])
            }
            for (index, recipe) in [
                ("Bread", 450.0, 2), ("Broth", 212.0, 6), ("Brine", 50.0, 1), ("Cake", 350.0, 8), ("Bun", 400.0, 4),
            ].enumerated() {
                let id = try writer.insert(
                    "Recipe",
                    ["name": .string(recipe.0), "temperature": .double(recipe.1), "size": .integer(Int64(recipe.2))])
                if index != 4 { try writer.relate(id, "chef", to: [chefs[index % 2]]) }
                let parts = try (1...3).map {
                    try writer.insert("Ingredient", ["amount": .double(Double(index * 10 + $0))])
                }
                try writer.relate(id, "ingredients", to: parts)
            }
        }
        try store.close()
        let parsed = try MappingYAMLReader.read(mapping, name: "RecipesToRecipes", file: "Recipes.mapping.yaml")
        _ = try MappingMigration.run(
            store: path, from: v1, to: v2, mappings: [parsed],
            options: MigrationOptions(chunkSize: 2, configureManager: { $0.useSetBasedSQL = setBased }))
        return try rows(
            path,
            """
            SELECT r.zname, round(r.ztemperaturec, 6), r.zsize, r.zchefname, r.zservings, c.zname, round(c.zsalary, 6),
                   (SELECT count(*) FROM zingredient i WHERE i.zrecipe = r.z_pk), (SELECT count(*) FROM zingredient)
            FROM zrecipe r LEFT JOIN zchef c ON c.z_pk = r.zchef ORDER BY r.z_pk
            """
        ).map { $0.map(\.description) }
    }

    func testCompiledAndEvaluatedExpressionsAgree() throws {
        let setBased = try migrate(setBased: true)
        let rowByRow = try migrate(setBased: false)
        XCTAssertEqual(setBased, rowByRow)
        XCTAssertEqual(
            setBased,
            [
                ["\"Bread\"", "232.222222", "2", "\"Ada\"", "4", "\"Ada\"", "1040.0", "3", "15"],
                ["\"Broth\"", "100.0", "6", "\"Brillat\"", "4", "\"Brillat\"", "2600.0", "3", "15"],
                ["\"Bun\"", "204.444444", "4", "NULL", "4", "NULL", "NULL", "3", "15"],
            ], "only recipes above 100°F whose name starts with B; °F → °C; a chef's salary up 4%")
    }
}
