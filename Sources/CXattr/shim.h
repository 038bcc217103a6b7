// The C library's extended attributes (Glibc's Swift module leaves <sys/xattr.h> out): a
// migration gives the files it makes the store's extended attributes (FilePermissions.swift).
#include <sys/xattr.h>
