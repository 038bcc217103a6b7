import ChrysalisCLI
import Demo  // BookToBookPolicy and UserToUserPolicy; an app's policies live in its own module

var policies = PolicyRegistry()
policies.register("MHWBookToBookPolicy") { BookToBookPolicy() }
policies.register("MHWUserToUserPolicy") { UserToUserPolicy() }
Chrysalis.main(policies: policies)
