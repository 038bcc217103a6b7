import BooksPolicies
import ChrysalisCLI

// The app's own command line: `chrysalis`, every command included, with the app's policies
// registered under the class names its mapping models use.
var policies = PolicyRegistry()
policies.register("MHWBookToBookPolicy") { BookToBookPolicy() }
policies.register("MHWUserToUserPolicy") { UserToUserPolicy() }
Chrysalis.main(policies: policies)
