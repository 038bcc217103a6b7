import ObjectModel
import SQLiteStore

/// An entity mapping's attribute mappings as Core Data's default stage 1 applies them, worked
/// out once per pass instead of once per row: the destination attribute each one sets, and, for
/// the commonest expression, `$source.<attribute>`, the source attribute it copies.
///
/// A row-by-row mapping evaluates its attribute mappings for every source instance. Walking
/// `$source.title` through the evaluator (the variable, the key path, the scope's look-ups of
/// entity and property) costs more than the copy itself; read straight from the source row the
/// stage is visiting, the value is the one the evaluator would return, and it is converted to the
/// destination attribute's kind by the same rule.
struct AttributeAssignments {
    /// A class: a row's assignments are walked for every instance, and copying each one's
    /// attribute description and expression out of the array cost more than using them.
    final class Assignment {
        /// The destination attribute's name.
        let name: String
        let attribute: AttributeDescription
        let expression: Expression
        /// The expression as written, for errors.
        let text: String?
        /// The source attribute the expression reads, when it is exactly `$source.<attribute>`.
        let copiedKey: String?

        init(name: String, attribute: AttributeDescription, expression: Expression, text: String?, copiedKey: String?) {
            (self.name, self.attribute, self.expression, self.text, self.copiedKey) = (
                name, attribute, expression, text, copiedKey
            )
        }
    }

    /// The source entity's number: the copies hold for its instances only.
    let sourceEntityNumber: Int?
    let assignments: [Assignment]

    /// The assignments `mapping` makes to an instance of `entity`; mappings naming no destination
    /// attribute are skipped, as Core Data skips them.
    init(mapping: EntityMapping, entity: String, sourceLayout: StoreLayout, destinationLayout: StoreLayout) {
        let sourceEntity = mapping.sourceEntity
        sourceEntityNumber = sourceEntity.flatMap { sourceLayout.numbering.number(of: $0) }
        assignments = mapping.attributeMappings.compactMap { property in
            guard let expression = property.expression,
                case .attribute(let attribute)? = destinationLayout.property(property.name, of: entity)
            else { return nil }
            var copiedKey: String?
            if case let .keyPath(.variable("source"), keys) = expression, keys.count == 1, let sourceEntity,
                case .attribute? = sourceLayout.property(keys[0], of: sourceEntity)
            {
                copiedKey = keys[0]
            }
            return Assignment(
                name: property.name, attribute: attribute, expression: expression, text: property.text,
                copiedKey: copiedKey)
        }
    }

    /// Assignments of `expressions` (attribute name, expression) to an instance of `entity`,
    /// all evaluated: the association hook's, which may read `$destination` too.
    init(_ expressions: [(attribute: String, expression: Expression)], entity: String, destinationLayout: StoreLayout) {
        sourceEntityNumber = nil
        assignments = expressions.compactMap { name, expression in
            guard case .attribute(let attribute)? = destinationLayout.property(name, of: entity) else { return nil }
            return Assignment(name: name, attribute: attribute, expression: expression, text: nil, copiedKey: nil)
        }
    }
}
