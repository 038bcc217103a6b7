import ChrysalisCLI
import Demo

// The command line as an app builds it for its own mapping models, here with the demos'
// policies and BookStore's manager hook registered: what the tests run the demos' mapping
// models through from the command line. `chrysalis` itself registers nothing.
Chrysalis.main(policies: DemoResources.policies, configureManager: BookStoreSynopsis.install)
