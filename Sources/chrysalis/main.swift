import ChrysalisCLI

// The command line with nothing registered: mapping models that name custom policies need an
// app's own build of it (see Examples/ and the README's "Your own policies").
Chrysalis.main()
