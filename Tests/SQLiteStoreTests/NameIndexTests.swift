import XCTest

@testable import SQLiteStore

/// ``NameIndex`` scans a few names and hashes many: either way it finds what a dictionary of the
/// same pairs would, the first of a repeated name wins, and an unknown name finds nothing.
final class NameIndexTests: XCTestCase {
    func testScannedAndHashedIndexesFindWhatADictionaryFinds() {
        for count in [0, 1, 5, NameIndex<Int>.scanLimit, NameIndex<Int>.scanLimit + 1, 60] {
            // Short names (stored inline) and long ones (stored on the heap), built at run time
            // so none shares a literal's address with the names looked up.
            let names = (0..<count).map { $0 % 2 == 0 ? "a\($0)" : "aVeryLongAttributeName\($0)" }
            let index = NameIndex(names.enumerated().map { ($1, $0) } + names.map { ($0, -1) })
            let dictionary = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            XCTAssertEqual(index.names, names, "\(count) names")
            for name in names + ["", "a", "aVeryLongAttributeName", "missing\(count)"] {
                XCTAssertEqual(
                    index[String(name.utf8.map { Character(UnicodeScalar($0)) })], dictionary[name],
                    "\(name) among \(count) names")
            }
        }
    }
}
