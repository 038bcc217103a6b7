import ChrysalisCLI
import Foundation
import ShelfStages

// The app's own command line: `chrysalis`, every command included, with the app's stages
// registered, so that `--strategy staged` runs them, handlers and all.
do {
    Chrysalis.main(stages: try ShelfMigration.stages())
} catch {
    FileHandle.standardError.write(Data("error: the app's stages are refused: \(error)\n".utf8))
    exit(1)
}
