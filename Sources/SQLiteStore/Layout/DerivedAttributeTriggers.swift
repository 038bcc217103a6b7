import Foundation
internal import GRDB
import ObjectModel

/// The SQL Core Data keeps a derived attribute up to date with (`NSDerivedAttributeDescription`,
/// iOS 13+): triggers named `Z_DA_…` on the tables its value depends on, and the statement that
/// computes every row's value once (Core Data's generator runs that "data" statement, then the
/// "trigger" statements, for the destination model of every in-place migration).
///
/// Written exactly as Core Data writes them for the one derivation whose SQL is on record, the
/// count of a to-many whose inverse is a to-one (`pages.@count`): the five triggers of CoreDataPlus
/// `SampleModel2_V1.sqlite` in the fixtures, compared text for text in `DerivedAttributeTests`.
/// Any other derivation (a key path, `@sum`, `now()`, `lowercase:`…) is listed in ``unwritten``,
/// so that a plan names it instead of leaving its values silently stale.
///
/// The triggers call `NSCoreDataDATriggerUpdatedAffectedObjectValue`, a function only Core Data's
/// connections define: they are created after a step has written its rows, never before.
package struct DerivedAttributeTriggers: Sendable {
    /// One derived attribute whose SQL Chrysalis writes.
    package struct Derivation: Sendable {
        /// The entity that declares it, and the attribute.
        package var entity: String, attribute: String
        /// The statement that computes every row's value.
        package var backfill: SQLStatement
        /// The `CREATE TRIGGER` statements, in Core Data's order.
        package var triggers: [SQLStatement]
        /// The triggers' names.
        package var triggerNames: [String]
        /// The table each trigger is on.
        package var triggerTables: [String]
    }

    /// One derived attribute whose SQL Chrysalis does not write.
    package struct Unwritten: Sendable, Hashable, CustomStringConvertible {
        /// The entity that declares it, the attribute, and its derivation as the model spells it.
        package var entity: String, attribute: String, expression: String
        /// The table and column that hold its values.
        package var table: String?, column: String?

        /// `Entity.attribute (expression)`, as a plan names it.
        package var description: String { "\(entity).\(attribute) (\(expression))" }

        /// Whether `name` is one of the triggers Core Data made for it: its names are
        /// `Z_DA_<table>_<Entity>_<attribute>_<role>` (see ``count``).
        package func owns(triggerNamed name: String) -> Bool {
            DerivedAttributeTriggers.isDerivedAttributeTrigger(name) && name.contains("_\(entity)_\(attribute)_")
        }
    }

    /// The derived attributes of the layout whose SQL is written.
    package let derivations: [Derivation]
    /// Each derived attribute whose SQL Chrysalis cannot write.
    package let unwritten: [Unwritten]

    /// The derived attributes of `layout`.
    package init(layout: StoreLayout) {
        var derivations: [Derivation] = [], unwritten: [Unwritten] = []
        for entity in layout.model.entities {
            for attribute in entity.attributes where !attribute.isTransient {
                guard let expression = attribute.derivationExpression else { continue }
                if let derivation = Self.count(entity.name, attribute, expression, layout) {
                    derivations.append(derivation)
                } else {
                    unwritten.append(
                        Unwritten(
                            entity: entity.name, attribute: attribute.name, expression: expression,
                            table: layout.table(for: entity.name)?.name,
                            column: layout.column(entity: entity.name, property: attribute.name)?.name))
                }
            }
        }
        (self.derivations, self.unwritten) = (derivations, unwritten)
    }

    /// The derivations without written SQL that an in-place step from `source` keeps: the same
    /// derivation of the same attribute, in the same table and column, so the triggers Core Data
    /// made for it still name what they named. Core Data recreates every derivation's triggers
    /// after an in-place migration; for these Chrysalis makes again the ones the store has.
    package func unchangedUnwritten(from source: DerivedAttributeTriggers) -> [Unwritten] {
        let before = Set(source.unwritten)
        return unwritten.filter { before.contains($0) && $0.table != nil && $0.column != nil }
    }

    /// Every statement, backfills first: what a step runs once its rows are written.
    package var statements: [SQLStatement] {
        derivations.map(\.backfill) + derivations.flatMap(\.triggers)
    }

    /// Whether `name` is a trigger Core Data made for a derived attribute.
    package static func isDerivedAttributeTrigger(_ name: String) -> Bool {
        name.hasPrefix("Z_DA_")
    }

    /// The to-many a count derivation counts: `pages.@count` as Xcode's XML writes it, or
    /// `count:(pages)` as an archived model (`Z_MODELCACHE`, a compiled `.mom`) spells it.
    static func countedRelationship(_ expression: String) -> String? {
        let text = expression.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix(".@count") {
            let name = String(text.dropLast(".@count".count))
            return name.isEmpty || name.contains(".") ? nil : name
        }
        if text.hasPrefix("count:("), text.hasSuffix(")") {
            let name = String(text.dropFirst("count:(".count).dropLast())
            return name.isEmpty || name.contains(".") || name.contains(" ") ? nil : name
        }
        return nil
    }

    /// `relationship.@count` of a to-many whose inverse is a to-one stored as a key in the
    /// destination's table.
    private static func count(
        _ entity: String, _ attribute: AttributeDescription, _ expression: String, _ layout: StoreLayout
    ) -> Derivation? {
        guard let relationship = countedRelationship(expression),
            case .inverseForeignKey(let other, let key, _, _)? = layout.storage(
                entity: entity, relationship: relationship),
            let table = layout.table(for: entity)?.name,
            let column = layout.column(entity: entity, property: attribute.name)?.name
        else { return nil }
        let name = attribute.name
        let affected =
            "SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('\(table)', Z_ENT, Z_PK, '\(name)', \(column)) FROM \(table) WHERE Z_PK ="
        let parameter = "Z_DA_\(other)_\(entity)_\(name)_PARAMETER"
        let source = "Z_DA_\(table)_\(entity)_\(name)_SOURCE_INSERT"
        let sql: [(String, String)] = [
            (
                parameter + "_INSERT",
                "AFTER INSERT ON \(other) FOR EACH ROW WHEN (NEW.\(key) NOT NULL) BEGIN UPDATE \(table) SET \(column) = IFNULL(\(column), 0) + 1 WHERE Z_PK = NEW.\(key); \(affected) NEW.\(key); END"
            ),
            (
                parameter + "_UPDATE_INCREMENT",
                "AFTER UPDATE OF \(key) ON \(other) FOR EACH ROW WHEN (NEW.\(key) NOT NULL) BEGIN UPDATE \(table) SET \(column) = \(column) + 1 WHERE Z_PK = NEW.\(key); \(affected) NEW.\(key); END"
            ),
            (
                parameter + "_UPDATE_DECREMENT",
                "AFTER UPDATE OF \(key) ON \(other) FOR EACH ROW WHEN (OLD.\(key) NOT NULL) BEGIN UPDATE \(table) SET \(column) = \(column) - 1 WHERE Z_PK = OLD.\(key); \(affected) OLD.\(key); END"
            ),
            (
                parameter + "_DELETE",
                "AFTER DELETE ON \(other) FOR EACH ROW WHEN (OLD.\(key) NOT NULL) BEGIN UPDATE \(table) SET \(column) = \(column) - 1 WHERE Z_PK = OLD.\(key); \(affected) OLD.\(key); END"
            ),
            (
                source,
                "AFTER INSERT ON \(table) FOR EACH ROW BEGIN UPDATE \(table) SET \(column) = (SELECT IFNULL(COUNT(\(key)), 0) FROM \(other) WHERE \(key) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('\(table)', Z_ENT, Z_PK, '\(name)', \(column)) FROM \(table) WHERE Z_PK = NEW.Z_PK; END"
            ),
        ]
        // Every row of the entity's table counts its members once: a grouped count joined back
        // is linear, where a subquery per row would scan `other` per row without an index.
        let backfill = SQLStatement(
            """
            UPDATE \(table) SET \(column) = coalesce((SELECT n FROM (SELECT \(key) AS k, count(*) AS n FROM \(other) WHERE \(key) IS NOT NULL GROUP BY \(key)) WHERE k = \(table).Z_PK), 0) \
            WHERE Z_ENT IN (\(layout.numbering.numbers(inHierarchyOf: layout.numbering.number(of: entity) ?? 0).map(String.init).joined(separator: ", ")))
            """)
        return Derivation(
            entity: entity, attribute: name, backfill: backfill,
            triggers: sql.map { SQLStatement("CREATE TRIGGER \($0.0) \($0.1)") }, triggerNames: sql.map(\.0),
            triggerTables: [other, other, other, other, table])
    }
}
