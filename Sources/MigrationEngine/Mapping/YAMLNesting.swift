/// How deeply YAML text nests lists and mappings, measured from the text alone, line by line and
/// without recursion: so a mapping file nested thousands deep is refused before Yams, which
/// builds its nodes recursively, would overflow the stack.
///
/// The measure is an upper bound of the parser's nesting, never below it, because it reads no
/// context that could hide a level: every `[` and `{` counts as opening one (a `]` or `}` closes
/// one), inside quotes and comments too; every indentation column still open counts twice (a
/// list may sit at the column of the key that holds it); and every `- `, `? ` or `: ` that
/// starts a line's content opens one more. Real mapping files nest four or five levels and stay
/// far below any sensible limit; only brackets left open in many strings would count too high.
enum YAMLNesting {
    /// The first line (from 1) whose nesting goes past `limit`; nil when none does.
    static func lineNestedDeeperThan(_ limit: Int, in text: String) -> Int? {
        var columns: [Int] = []
        var flow = 0
        for (offset, line) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            let bytes = Array(line)
            let indent = bytes.prefix { $0 == UInt8(ascii: " ") }.count
            if indent < bytes.count, !isSpace(bytes[indent]) {
                while let last = columns.last, last > indent { columns.removeLast() }
                if columns.last != indent { columns.append(indent) }
                columns += compactNodes(bytes, from: indent)
            }
            var deepest = 2 * columns.count + flow
            for byte in bytes {
                if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    flow += 1
                    deepest = max(deepest, 2 * columns.count + flow)
                } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                    flow = max(flow - 1, 0)
                }
            }
            if deepest > limit { return offset + 1 }
        }
        return nil
    }

    /// The columns of the nodes that `- `, `? ` and `: ` open one inside the other at the start
    /// of a line's content (`- - x`, `? ? x`).
    private static func compactNodes(_ line: [UInt8], from indent: Int) -> [Int] {
        var columns: [Int] = []
        var position = indent
        while position + 1 < line.count,
            [UInt8(ascii: "-"), UInt8(ascii: "?"), UInt8(ascii: ":")].contains(line[position]),
            isSpace(line[position + 1])
        {
            position += 2
            while position < line.count, isSpace(line[position]) { position += 1 }
            columns.append(position)
        }
        return columns
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }
}
