import Testing

@testable import MigrationEngine

/// Expects `text` to fail parsing with an ``ExpressionError`` at `column` whose message contains
/// `message`: the parser's promise that every error points at the character at fault.
func expectParseError(_ text: String, column: Int, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(sourceLocation: sourceLocation) {
        _ = try ExpressionParser.expression(text)
    } throws: { error in
        guard let error = error as? ExpressionError else { return false }
        return error.column == column && error.message.contains(message)
    }
}
