// The system zlib, for the raw DEFLATE of a store's Z_MODELCACHE (Foundation has no zlib on Linux).
#include <zlib.h>
