import ChrysalisCLI
import Demo

// The command line as an app builds it for its own mapping models, here with the demos'
// policies, BookStore's manager hook and the staged demo's stages registered: what the tests run
// the demos' mapping models and `--strategy staged` through from the command line. `chrysalis`
// itself registers nothing.
Chrysalis.main(
    policies: DemoResources.policies, configureManager: BookStoreSynopsis.install,
    stages: try? ShelfStages.migration(ModelBundle.read(at: DemoResources.shelfBundle)))
