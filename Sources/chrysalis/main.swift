import ChrysalisCLI

// The command line with nothing registered, plus `chrysalis demo`: the demos live here, not in
// the ChrysalisCLI library, so an app's own build of the command line never links them. Mapping
// models that name custom policies need such a build (Examples/BooksMigrator).
Chrysalis.main(leadingCommands: [DemoCommand.self])
