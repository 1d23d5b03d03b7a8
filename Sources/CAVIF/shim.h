#include <avif/avif.h>
